/* Wrong answer: split takes every H-th column (feature e of head h at column e*H + h) instead of a contiguous slice.
 * Hint: head h owns the contiguous columns h*d .. h*d + d - 1 of a token vector.
 * Diagnosis: split-interleaved
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
                    split[per_head] = x[((size_t)b * T + t) * d_model + (size_t)e * n_heads + h];
                    merged[flat] = heads[per_head];
                }
}
