/* attack: a .dynamic section in the submission: the static program gets a PT_DYNAMIC header
 * threat: dynamic-linking information in a program the judge runs as static (a loader's work, or a start-up crash that is not the student's fault)
 * expect: compile_error
 * message: dynamic-linking information
 * problem: mha-fused-qkv
 */
__attribute__((section(".dynamic"), used)) static const long attack_dynamic[4] = {0};

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
