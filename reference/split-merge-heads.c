/*
 * Reference implementation of problem "split-merge-heads".
 *
 * Two independent layout changes, the ones multi-head attention does before
 * and after the per-head attention (D = d_model, H = n_heads, d = D / H):
 *     split:  (B, T, D) -> (B, H, T, d)   split[b][h][t][e]  = x[b][t][h*d + e]
 *     merge:  (B, H, T, d) -> (B, T, D)   merged[b][t][h*d + e] = heads[b][h][t][e]
 * Pure copies: the outputs are bit-exact.
 */
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void split_merge_heads(const float *x, const float *heads, float *split, float *merged, int B,
                       int T, int d_model, int n_heads);

void split_merge_heads(const float *x, const float *heads, float *split, float *merged, int B,
                       int T, int d_model, int n_heads)
{
    const int d = d_model / n_heads;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int h = 0; h < n_heads; h++)
                for (int e = 0; e < d; e++) {
                    size_t flat = ((size_t)b * T + t) * d_model + (size_t)h * d + e;
                    size_t per_head = (((size_t)b * n_heads + h) * T + t) * d + e;
                    split[per_head] = x[flat];
                    merged[flat] = heads[per_head];
                }
}
