/* Accepted: element-wise copy of the caches; online softmax over the past slots, then the new token from k_new and v_new directly. */
#include <math.h>
#include <stdlib.h>

void kv_cache_decode(const float *q, const float *k_new, const float *v_new, const float *k_cache,
                     const float *v_cache, float *k_cache_out, float *v_cache_out, float *out,
                     int B, int H, int max_T, int d_head, int pos)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    float *acc = malloc((size_t)d_head * sizeof *acc);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            const size_t bh = (size_t)b * H + h;
            const float *qv = q + bh * d_head;
            const float *kn = k_new + bh * d_head;
            const float *vn = v_new + bh * d_head;
            for (int j = 0; j < max_T; j++)
                for (int e = 0; e < d_head; e++) {
                    const size_t i = (bh * max_T + j) * d_head + e;
                    k_cache_out[i] = j == pos ? kn[e] : k_cache[i];
                    v_cache_out[i] = j == pos ? vn[e] : v_cache[i];
                }
            float m = -INFINITY, l = 0.0f;
            for (int e = 0; e < d_head; e++)
                acc[e] = 0.0f;
            for (int j = 0; j <= pos; j++) {
                const float *kj = j == pos ? kn : k_cache + (bh * max_T + j) * d_head;
                const float *vj = j == pos ? vn : v_cache + (bh * max_T + j) * d_head;
                float s = 0.0f;
                for (int e = 0; e < d_head; e++)
                    s += qv[e] * kj[e];
                s *= scale;
                if (s > m) {
                    const float c = expf(m - s);
                    l *= c;
                    for (int e = 0; e < d_head; e++)
                        acc[e] *= c;
                    m = s;
                }
                const float w = expf(s - m);
                l += w;
                for (int e = 0; e < d_head; e++)
                    acc[e] += w * vj[e];
            }
            for (int e = 0; e < d_head; e++)
                out[bh * d_head + e] = acc[e] / l;
        }
    free(acc);
}
