/* attack: integer division by zero
 * threat: crash reporting: the signal name in the message
 * expect: runtime_error
 * message: SIGFPE
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
    volatile int zero = 0;
    out[0] = (float)(B / zero);
}
