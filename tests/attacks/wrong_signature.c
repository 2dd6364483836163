/* attack: define the function with double tensors, so the harness would read the wrong bytes
 * threat: a signature that does not match the problem's prototype
 * expect: compile_error
 * message: conflicting types
 * problem: mha-fused-qkv
 */
void mha_fused_qkv(const double *x, const double *w_qkv, const double *w_o, double *out, int B,
                   int T, int d_model, int n_heads)
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
