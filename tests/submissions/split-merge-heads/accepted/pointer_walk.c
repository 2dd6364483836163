/* Accepted: walks the outputs in memory order with running pointers. */
#include <stdlib.h>

void split_merge_heads(const float *x, const float *heads, float *split, float *merged, int B,
                       int T, int d_model, int n_heads)
{
    const int d = d_model / n_heads;
    float *s = split;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < n_heads; h++)
            for (int t = 0; t < T; t++) {
                const float *src = x + ((size_t)b * T + t) * d_model + (size_t)h * d;
                for (int e = 0; e < d; e++)
                    *s++ = src[e];
            }
    float *m = merged;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int h = 0; h < n_heads; h++) {
                const float *src = heads + (((size_t)b * n_heads + h) * T + t) * d;
                for (int e = 0; e < d; e++)
                    *m++ = src[e];
            }
}
