/* attack: install its own seccomp filter (to make the harness's own syscalls fail or lie)
 * threat: the seccomp syscall itself must not be in the allow-list
 * expect: security_violation
 * message: seccomp
 * problem: mha-fused-qkv
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
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
    struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = {1, &allow};
    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}
