/*
 * Known mistake "no-scale" of problem "sdpa-single-head": scores are not scaled by 1/sqrt(d_k).
 * The reference with that one change; everything is accumulated in double.
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void sdpa(const float *q, const float *k, const float *v, float *out, int B, int Tq, int Tk,
          int d_k, int d_v, int causal);

void sdpa(const float *q, const float *k, const float *v, float *out, int B, int Tq, int Tk,
          int d_k, int d_v, int causal)
{
    const double scale = 1.0;
    double *p = malloc((size_t)Tk * sizeof *p);
    if (p == NULL)
        abort();
    for (int b = 0; b < B; b++) {
        const float *qb = q + (size_t)b * Tq * d_k;
        const float *kb = k + (size_t)b * Tk * d_k;
        const float *vb = v + (size_t)b * Tk * d_v;
        float *ob = out + (size_t)b * Tq * d_v;
        for (int i = 0; i < Tq; i++) {
            /* keys 0 .. n-1 are allowed */
            const int n = causal ? i + 1 : Tk;
            double m = -INFINITY;
            for (int j = 0; j < n; j++) {
                double dot = 0.0;
                for (int e = 0; e < d_k; e++)
                    dot += (double)qb[(size_t)i * d_k + e] * kb[(size_t)j * d_k + e];
                p[j] = dot * scale;
                if (p[j] > m)
                    m = p[j];
            }
            double sum = 0.0;
            for (int j = 0; j < n; j++) {
                p[j] = exp(p[j] - m);
                sum += p[j];
            }
            for (int e = 0; e < d_v; e++) {
                double acc = 0.0;
                for (int j = 0; j < n; j++)
                    acc += p[j] * vb[(size_t)j * d_v + e];
                ob[(size_t)i * d_v + e] = (float)(acc / sum);
            }
        }
    }
    free(p);
}
