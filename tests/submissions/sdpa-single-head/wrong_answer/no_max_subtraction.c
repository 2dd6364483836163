/*
 * Wrong answer: softmax without subtracting the row maximum; expf overflows to inf on large scores.
 * Diagnosis: no-max-subtraction
 */
#include <math.h>
#include <stdlib.h>

void sdpa(const float *q, const float *k, const float *v, float *out, int B, int Tq, int Tk,
          int d_k, int d_v, int causal)
{
    const float scale = 1.0f / sqrtf((float)d_k);
    float *p = malloc((size_t)Tk * sizeof *p);
    for (int b = 0; b < B; b++) {
        const float *qb = q + (size_t)b * Tq * d_k;
        const float *kb = k + (size_t)b * Tk * d_k;
        const float *vb = v + (size_t)b * Tk * d_v;
        float *ob = out + (size_t)b * Tq * d_v;
        for (int i = 0; i < Tq; i++) {
            const int n = causal ? i + 1 : Tk;
            float m = -INFINITY;
            for (int j = 0; j < n; j++) {
                float dot = 0.0f;
                for (int e = 0; e < d_k; e++)
                    dot += qb[(size_t)i * d_k + e] * kb[(size_t)j * d_k + e];
                p[j] = dot * scale;
                if (p[j] > m)
                    m = p[j];
            }
            float sum = 0.0f;
            for (int j = 0; j < n; j++) {
                p[j] = expf(p[j]);
                sum += p[j];
            }
            for (int e = 0; e < d_v; e++) {
                float acc = 0.0f;
                for (int j = 0; j < n; j++)
                    acc += p[j] * vb[(size_t)j * d_v + e];
                ob[(size_t)i * d_v + e] = acc / sum;
            }
        }
    }
    free(p);
}
