/* attack: a .interp section in the submission: the static program then asks the kernel for a dynamic loader
 * threat: a student-caused internal_error (exec fails in the empty run root); the judge must refuse the program itself
 * expect: compile_error
 * message: asks for a dynamic loader
 * problem: mha-fused-qkv
 */
__attribute__((section(".interp"), used)) static const char attack_interp[] =
    "/lib64/ld-linux-x86-64.so.2";

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
