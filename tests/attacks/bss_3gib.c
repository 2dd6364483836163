/* attack: a 3 GiB static array in .bss, so that the program cannot be loaded at all
 * threat: address space over any limit at exec time; here the static link itself fails
 * expect: compile_error
 * message: relocation truncated
 * problem: mha-fused-qkv
 *
 * With the default (small) code model every static object must lie within
 * 2 GiB of the code: libc's own .bss ends up beyond it and the link fails.
 * bss_huge.c is the 1.5 GiB variant that links and must give memory_limit.
 */
#include <stddef.h>

static char attack_big[(size_t)3 << 30];

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)B;
    (void)d_model;
    (void)n_heads;
    for (size_t i = 0; i < sizeof attack_big; i += (size_t)1 << 20)
        attack_big[i] = 1;
    out[0] = attack_big[(size_t)T * 4096];
}
