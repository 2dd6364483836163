/* attack: define a misspelt function, so the harness's call has no target
 * threat: a link failure must be the student's compile_error, never internal_error
 * expect: compile_error
 * message: undefined reference
 * problem: mha-fused-qkv
 */
void mha_fused_qvk(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads);
void mha_fused_qvk(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
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
}
