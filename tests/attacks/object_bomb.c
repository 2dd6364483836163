/* attack: an initialised 16 GiB array: the assembler writes a 16 GiB object file
 * threat: object-file bomb filling the judge's disk (docs/pitfalls.md §2.2)
 * expect: compile_error
 * problem: mha-fused-qkv
 *
 * The compile sandbox's file-size limit (and a tmpfs /tmp) must stop it.
 */
#include <stddef.h>

char attack_bomb[1L << 34] = {1};

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)B;
    (void)T;
    (void)d_model;
    (void)n_heads;
    out[0] = attack_bomb[(size_t)T << 20];
}
