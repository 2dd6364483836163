/* attack: a 1.5 GiB zero-initialised static array: the program cannot even be loaded under the memory limit
 * threat: address space over the limit at exec time (RLIMIT_AS), before any malloc
 * expect: memory_limit
 * problem: mha-fused-qkv
 */
#include <stddef.h>

static char attack_big[(size_t)3 << 29]; /* 1.5 GiB in .bss */

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
    for (size_t i = 0; i < sizeof attack_big; i += (size_t)1 << 20)
        attack_big[i] = 1;
    out[0] = attack_big[(size_t)T * 4096];
}
