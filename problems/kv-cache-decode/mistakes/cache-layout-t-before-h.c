/*
 * Known mistake "cache-layout-t-before-h" of problem "kv-cache-decode": the caches are read and written as (B, max_T, H, d_head) instead of (B, H, max_T, d_head).
 * The reference with that one change; everything is accumulated in double.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

void kv_cache_decode(const float *q, const float *k_new, const float *v_new, float *k_cache,
                     float *v_cache, float *out, int B, int H, int max_T, int d_head, int pos)
{
    const double scale = 1.0 / sqrt((double)d_head);
    double *p = malloc((size_t)(pos + 1) * sizeof *p);
    if (p == NULL)
        abort();
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            const size_t bh = (size_t)b * H + h;
            /* slot j of head h, read as if the layout were (B, max_T, H, d_head) */
#define SLOT(j) ((((size_t)b * max_T + (j)) * H + h) * d_head)
            memcpy(k_cache + SLOT(pos), k_new + bh * d_head, d_head * sizeof *k_new);
            memcpy(v_cache + SLOT(pos), v_new + bh * d_head, d_head * sizeof *v_new);
            double m = -INFINITY;
            for (int j = 0; j <= pos; j++) {
                double dot = 0.0;
                for (int e = 0; e < d_head; e++)
                    dot += (double)q[bh * d_head + e] * k_cache[SLOT(j) + e];
                p[j] = dot * scale;
                if (p[j] > m)
                    m = p[j];
            }
            double sum = 0.0;
            for (int j = 0; j <= pos; j++) {
                p[j] = exp(p[j] - m);
                sum += p[j];
            }
            for (int e = 0; e < d_head; e++) {
                double acc = 0.0;
                for (int j = 0; j <= pos; j++)
                    acc += p[j] * v_cache[SLOT(j) + e];
                out[bh * d_head + e] = (float)(acc / sum);
            }
#undef SLOT
        }
    free(p);
}
