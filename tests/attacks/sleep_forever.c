/* attack: sleep(100): use no CPU at all, so only a wall clock can stop it
 * threat: RLIMIT_CPU never fires for a sleeping program (docs/pitfalls.md §1.5)
 * expect: time_limit
 * problem: mha-fused-qkv
 */
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
    for (int i = 0; i < 1000; i++)
        sleep(100);
}
