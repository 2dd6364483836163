/* Accepted: single-pass streaming (online) softmax that rescales the accumulator as the running maximum grows. */
#include <math.h>
#include <stdlib.h>

void sdpa(const float *q, const float *k, const float *v, float *out, int B, int Tq, int Tk,
          int d_k, int d_v, int causal)
{
    const float scale = 1.0f / sqrtf((float)d_k);
    float *acc = malloc((size_t)d_v * sizeof *acc);
    for (int b = 0; b < B; b++) {
        const float *qb = q + (size_t)b * Tq * d_k;
        const float *kb = k + (size_t)b * Tk * d_k;
        const float *vb = v + (size_t)b * Tk * d_v;
        float *ob = out + (size_t)b * Tq * d_v;
        for (int i = 0; i < Tq; i++) {
            const int n = causal ? i + 1 : Tk;
            float m = -INFINITY, l = 0.0f;
            for (int e = 0; e < d_v; e++)
                acc[e] = 0.0f;
            for (int j = 0; j < n; j++) {
                float s = 0.0f;
                for (int e = 0; e < d_k; e++)
                    s += qb[(size_t)i * d_k + e] * kb[(size_t)j * d_k + e];
                s *= scale;
                if (s > m) {
                    const float c = expf(m - s); /* 0 on the first key */
                    l *= c;
                    for (int e = 0; e < d_v; e++)
                        acc[e] *= c;
                    m = s;
                }
                const float w = expf(s - m);
                l += w;
                for (int e = 0; e < d_v; e++)
                    acc[e] += w * vb[(size_t)j * d_v + e];
            }
            for (int e = 0; e < d_v; e++)
                ob[(size_t)i * d_v + e] = acc[e] / l;
        }
    }
    free(acc);
}
