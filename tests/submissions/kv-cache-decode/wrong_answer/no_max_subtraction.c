/* Wrong answer: softmax without subtracting the maximum; expf overflows to inf on large scores. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

void kv_cache_decode(const float *q, const float *k_new, const float *v_new, float *k_cache,
                     float *v_cache, float *out, int B, int H, int max_T, int d_head, int pos)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    float *p = malloc((size_t)(pos + 1) * sizeof *p);

    for (int bh = 0; bh < B * H; bh++) {
        const size_t slot = ((size_t)bh * max_T + pos) * d_head;
        memcpy(k_cache + slot, k_new + (size_t)bh * d_head, d_head * sizeof *k_new);
        memcpy(v_cache + slot, v_new + (size_t)bh * d_head, d_head * sizeof *v_new);
    }

    for (int bh = 0; bh < B * H; bh++) {
        const float *qv = q + (size_t)bh * d_head;
        const float *kc = k_cache + (size_t)bh * max_T * d_head;
        const float *vc = v_cache + (size_t)bh * max_T * d_head;
        float m = -INFINITY;
        for (int j = 0; j <= pos; j++) {
            float dot = 0.0f;
            for (int e = 0; e < d_head; e++)
                dot += qv[e] * kc[(size_t)j * d_head + e];
            p[j] = dot * scale;
            if (p[j] > m)
                m = p[j];
        }
        float sum = 0.0f;
        for (int j = 0; j <= pos; j++) {
            p[j] = expf(p[j]);
            sum += p[j];
        }
        for (int e = 0; e < d_head; e++) {
            float acc = 0.0f;
            for (int j = 0; j <= pos; j++)
                acc += p[j] * vc[(size_t)j * d_head + e];
            out[(size_t)bh * d_head + e] = acc / sum;
        }
    }
    free(p);
}
