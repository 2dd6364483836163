/* attack: push a shell command into the controlling terminal with TIOCSTI on fds 0, 1, 2
 * threat: a terminal handed to the sandbox (docs/pitfalls.md §1.8)
 * expect: security_violation
 * message: ioctl
 * problem: mha-fused-qkv
 */
#include <sys/ioctl.h>

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
    static const char cmd[] = "touch /tmp/attnjudge-escape-tiocsti\n";
    for (int fd = 0; fd <= 2; fd++)
        for (const char *c = cmd; *c; c++)
            ioctl(fd, TIOCSTI, c);
}
