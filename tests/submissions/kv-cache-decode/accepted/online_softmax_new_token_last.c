/* Accepted: online softmax over the past slots, then the new token from k_new and v_new directly; slot pos is written only after the attention. */
#include <math.h>
#include <stdlib.h>

void kv_cache_decode(const float *q, const float *k_new, const float *v_new, float *k_cache,
                     float *v_cache, float *out, int B, int H, int max_T, int d_head, int pos)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    float *acc = malloc((size_t)d_head * sizeof *acc);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            const size_t bh = (size_t)b * H + h;
            const float *qv = q + bh * d_head;
            const float *kn = k_new + bh * d_head;
            const float *vn = v_new + bh * d_head;
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
            for (int e = 0; e < d_head; e++) {
                out[bh * d_head + e] = acc[e] / l;
                k_cache[(bh * max_T + pos) * d_head + e] = kn[e];
                v_cache[(bh * max_T + pos) * d_head + e] = vn[e];
            }
        }
    free(acc);
}
