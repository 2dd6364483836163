/* attack: thousands of errors, each with a chain of macro-expansion notes: megabytes of diagnostics
 * threat: unbounded compiler output (diagnostics are capped at 64 KiB)
 * expect: compile_error
 * message: lvalue required
 * max-log: 131072
 * problem: mha-fused-qkv
 */
#define E0 1 = 2;
#define E1 E0 E0
#define E2 E1 E1
#define E3 E2 E2
#define E4 E3 E3
#define E5 E4 E4
#define E6 E5 E5
#define E7 E6 E6
#define E8 E7 E7
#define E9 E8 E8
#define E10 E9 E9
#define E11 E10 E10
#define E12 E11 E11

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
    E12
}
