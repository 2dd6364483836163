/* attack: create /tmp/attnjudge-escape-create and write into it
 * threat: writing files from the run sandbox (shared /tmp, docs/pitfalls.md §1.10)
 * expect: security_violation
 * message: open
 * problem: mha-fused-qkv
 */
#include <fcntl.h>
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
    int fd = open("/tmp/attnjudge-escape-create", O_CREAT | O_WRONLY, 0644);
    if (fd >= 0) {
        (void)!write(fd, "escaped\n", 8);
        close(fd);
    }
}
