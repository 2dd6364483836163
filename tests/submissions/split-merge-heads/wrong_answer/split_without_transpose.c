/* Wrong answer: split is a plain reshape (B, T, H, d) copied as is, without moving the head axis before T.
 * Hint: in the split layout all T rows of head 0 come first, then all rows of head 1. A view to (B, T, H, d) still needs the transpose of T and H.
 * Diagnosis: split-without-transpose
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
                    split[flat] = x[flat];
                    merged[flat] = heads[per_head];
                }
}
