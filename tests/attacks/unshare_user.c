/* attack: unshare(CLONE_NEWUSER) to become root in a fresh user namespace (kernel attack surface)
 * threat: namespace creation from the run sandbox
 * expect: security_violation
 * message: unshare
 * problem: mha-fused-qkv
 */
#include <sys/syscall.h>
#include <unistd.h>

#define ATTACK_CLONE_NEWUSER 0x10000000

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
    syscall(SYS_unshare, ATTACK_CLONE_NEWUSER);
}
