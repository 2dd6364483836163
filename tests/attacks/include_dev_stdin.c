/* attack: #include "/dev/stdin" to make the compiler read the judge's stdin (hang if it is a pipe held open)
 * threat: the compiler reads whatever file the source names (docs/pitfalls.md §2.1)
 * expect: compile_error
 * message: No such file
 * problem: mha-fused-qkv
 */
#include "/dev/stdin"

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
}
