/* attack: a .preinit_array entry, the earliest user code of a static program, runs execve("/bin/sh")
 * threat: student code before main; a filter that must allow the sandbox's own execve (docs/pitfalls.md §1.1, §1.3)
 * expect: security_violation
 * message: execve
 * problem: mha-fused-qkv
 *
 * If execve is allowed and merely fails (empty filesystem), getppid (not in
 * the allow-list) follows, so the verdict stays security_violation but the
 * message tells that execve got through.
 */
#include <sys/syscall.h>
#include <unistd.h>

static void attack_preinit(int argc, char **argv, char **envp)
{
    char *args[] = {"sh", "-c", "touch /tmp/attnjudge-escape-preinit", NULL};
    (void)argc;
    (void)argv;
    execve("/bin/sh", args, envp);
    syscall(SYS_getppid);
}

__attribute__((section(".preinit_array"),
               used)) static void (*attack_preinit_entry)(int, char **, char **) = attack_preinit;

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
}
