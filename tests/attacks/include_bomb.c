/* attack: the file includes itself twice per level, 40 levels deep: 2^40 inclusions
 * threat: compiler CPU bomb without much memory (docs/pitfalls.md §2.2)
 * expect: compile_error
 * problem: mha-fused-qkv
 *
 * Only the compile sandbox's CPU or wall limit stops this.
 */
#if __INCLUDE_LEVEL__ < 40
#include __FILE__
#include __FILE__
#endif

#if __INCLUDE_LEVEL__ == 0
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
#endif
