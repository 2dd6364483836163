/* Accepted: one loop over the flat output index, decoded with division and modulo. */
#include <stdlib.h>

void split_merge_heads(const float *x, const float *heads, float *split, float *merged, int B,
                       int T, int d_model, int n_heads)
{
    const long d = d_model / n_heads;
    const long n = (long)B * T * d_model;
    for (long i = 0; i < n; i++) {
        /* i as an index of split: (b, h, t, e) */
        long e = i % d, t = i / d % T, h = i / d / T % n_heads, b = i / d / T / n_heads;
        split[i] = x[(b * T + t) * d_model + h * d + e];
        /* i as an index of merged: (b, t, c) with c = h*d + e */
        long c = i % d_model, t2 = i / d_model % T, b2 = i / d_model / T;
        merged[i] = heads[((b2 * n_heads + c / d) * T + t2) * d + c % d];
    }
}
