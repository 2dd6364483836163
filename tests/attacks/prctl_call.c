/* attack: prctl(PR_SET_NAME) and friends: change process attributes (dumpability, ptracer, name)
 * threat: prctl from the run sandbox (not in the allow-list)
 * expect: security_violation
 * message: prctl
 * problem: mha-fused-qkv
 */
#include <sys/prctl.h>

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
    prctl(PR_SET_NAME, (unsigned long)"attnjudge-pwn", 0, 0, 0);
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}
