/*
 * split-merge-heads — splitting and merging attention heads.
 *
 * Fill in split_merge_heads(). As written it compiles but writes zeros, so
 * every test fails. Read the statement for the details; in short (d = d_model / n_heads):
 *   - x, merged: (B, T, d_model); heads, split: (B, n_heads, T, d)
 *   - head h = the contiguous feature columns h*d .. h*d + d - 1
 *   - split[b][h][t][e] = x[b][t][h*d + e]
 *   - merged[b][t][h*d + e] = heads[b][h][t][e]
 */
#include <stdlib.h>
#include <string.h>

void split_merge_heads(const float *x, const float *heads, float *split, float *merged, int B,
                       int T, int d_model, int n_heads)
{
    (void)x;
    (void)heads;
    (void)n_heads;

    /* TODO: for every b, t, h and e (d = d_model / n_heads):
     *         flat     = (b*T + t)*d_model + h*d + e
     *         per_head = ((b*n_heads + h)*T + t)*d + e
     *         split[per_head] = x[flat]; merged[flat] = heads[per_head] */

    /* Placeholder so that the file compiles: replace it. */
    for (long i = 0; i < (long)B * T * d_model; i++) {
        split[i] = 0.0f;
        merged[i] = 0.0f;
    }
}
