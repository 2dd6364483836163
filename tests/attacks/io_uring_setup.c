/* attack: set up an io_uring, whose queued operations bypass per-syscall seccomp checks
 * threat: io_uring (its SQEs do open/connect/... without seccomp seeing them)
 * expect: security_violation
 * message: io_uring_setup
 * problem: mha-fused-qkv
 */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif

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
    unsigned char params[120];
    memset(params, 0, sizeof params);
    syscall(SYS_io_uring_setup, 8, params);
}
