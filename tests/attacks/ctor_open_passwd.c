/* attack: a constructor opens /etc/passwd before the harness's main can install any filter
 * threat: student code runs before main (docs/pitfalls.md §1.1)
 * expect: security_violation
 * message: open
 * forbid: root:x:0
 * problem: mha-fused-qkv
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void attack_ctor(void)
{
    char buf[4096];
    int fd = open("/etc/passwd", O_RDONLY);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0)
            fwrite(buf, 1, (size_t)n, stdout);
        close(fd);
    }
}

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
