/* attack: make the assembler parse /etc/passwd with .include (its lines echo in the error log)
 * threat: the assembler's .include reads any file (docs/pitfalls.md §2.1)
 * expect: compile_error
 * message: No such file
 * forbid: root:x:0
 * problem: mha-fused-qkv
 */
__asm__(".include \"/etc/passwd\"\n");

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
