/* attack: kill(1, SIGKILL): kill the pid namespace's init (or the host's)
 * threat: signals to the sandbox's supervisor (docs/pitfalls.md §1.4)
 * expect: security_violation
 * message: kill
 * problem: mha-fused-qkv
 */
#include <signal.h>

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
    kill(1, SIGKILL);
}
