/* Accepted: materialises the whole (Tq, Tk) score matrix per batch element, blocked entries set to -INFINITY. */
#include <math.h>
#include <stdlib.h>

void sdpa(const float *q, const float *k, const float *v, float *out, int B, int Tq, int Tk,
          int d_k, int d_v, int causal)
{
    const float scale = 1.0f / sqrtf((float)d_k);
    float *s = malloc((size_t)Tq * Tk * sizeof *s);
    for (int b = 0; b < B; b++) {
        const float *qb = q + (size_t)b * Tq * d_k;
        const float *kb = k + (size_t)b * Tk * d_k;
        const float *vb = v + (size_t)b * Tk * d_v;
        float *ob = out + (size_t)b * Tq * d_v;
        for (int i = 0; i < Tq; i++)
            for (int j = 0; j < Tk; j++) {
                float dot = 0.0f;
                for (int e = 0; e < d_k; e++)
                    dot += qb[(size_t)i * d_k + e] * kb[(size_t)j * d_k + e];
                s[(size_t)i * Tk + j] = (causal && j > i) ? -INFINITY : dot * scale;
            }
        for (int i = 0; i < Tq; i++) {
            float *row = s + (size_t)i * Tk;
            float m = row[0];
            for (int j = 1; j < Tk; j++)
                m = fmaxf(m, row[j]);
            float sum = 0.0f;
            for (int j = 0; j < Tk; j++) {
                row[j] = expf(row[j] - m);
                sum += row[j];
            }
            for (int j = 0; j < Tk; j++)
                row[j] /= sum;
            for (int e = 0; e < d_v; e++)
                ob[(size_t)i * d_v + e] = 0.0f;
            for (int j = 0; j < Tk; j++)
                for (int e = 0; e < d_v; e++)
                    ob[(size_t)i * d_v + e] += row[j] * vb[(size_t)j * d_v + e];
        }
    }
    free(s);
}
