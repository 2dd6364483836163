/* attack: execve("/bin/sh") to run a shell command that creates a file on the host
 * threat: program execution in the run sandbox (docs/pitfalls.md §1.3)
 * expect: security_violation
 * message: execve
 * problem: mha-fused-qkv
 */
#include <stddef.h>
#include <unistd.h>

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)out;
    (void)B;
    (void)T;
    (void)d_model;
    (void)n_heads;
    char *args[] = {"sh", "-c", "touch /tmp/attnjudge-escape-execve", NULL};
    char *env[] = {NULL};
    execve("/bin/sh", args, env);
    execve("/usr/bin/sh", args, env);
}
