/* attack: spin forever in user space
 * threat: CPU time limit
 * expect: time_limit
 * problem: mha-fused-qkv
 */

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
    for (;;)
        __asm__ volatile("" ::: "memory");
}
