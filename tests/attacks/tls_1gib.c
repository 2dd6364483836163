/* attack: a 1 GiB __thread array: static glibc cannot allocate the TLS block at start-up
 * threat: memory over the limit before main, reported as a mysterious crash ("Cannot allocate TLS block") instead of memory_limit
 * expect: memory_limit
 * message: thread-local
 * problem: mha-fused-qkv
 */
#include <stddef.h>

__thread char attack_tls[(size_t)1 << 30];

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    (void)x;
    (void)w_qkv;
    (void)w_o;
    (void)B;
    (void)d_model;
    (void)n_heads;
    attack_tls[(size_t)T << 12] = 1;
    out[0] = attack_tls[T];
}
