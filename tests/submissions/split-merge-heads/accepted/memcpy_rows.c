/* Accepted: copies each head's row of d floats with memcpy. */
#include <stdlib.h>
#include <string.h>

void split_merge_heads(const float *x, const float *heads, float *split, float *merged, int B,
                       int T, int d_model, int n_heads)
{
    const int d = d_model / n_heads;
    const size_t row = (size_t)d * sizeof(float);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < n_heads; h++)
            for (int t = 0; t < T; t++) {
                const size_t tok = ((size_t)b * T + t) * d_model + (size_t)h * d;
                const size_t hd = (((size_t)b * n_heads + h) * T + t) * d;
                memcpy(split + hd, x + tok, row);
                memcpy(merged + tok, heads + hd, row);
            }
}
