/* attack: unbounded recursion with 4 KiB frames until the stack limit
 * threat: a crash is runtime_error with its signal, not memory_limit (docs/pitfalls.md §1.7, not every SIGSEGV)
 * expect: runtime_error
 * message: SIGSEGV
 * problem: mha-fused-qkv
 */
static int attack_recurse(int n)
{
    volatile char frame[4096];
    frame[n & 4095] = (char)n;
    return attack_recurse(n + 1) + frame[(n * 7) & 4095];
}

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
    out[0] = (float)attack_recurse(T);
}
