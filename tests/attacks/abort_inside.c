/* attack: abort(): raises SIGABRT on itself through tgkill(own pid), which the sandbox allows
 * threat: crash reporting; abort() must not look like a security violation
 * expect: runtime_error
 * message: SIGABRT
 * problem: mha-fused-qkv
 */
#include <stdlib.h>

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
    abort();
}
