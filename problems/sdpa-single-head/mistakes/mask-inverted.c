/*
 * Known mistake "mask-inverted" of problem "sdpa-single-head": with causal = 1, query i attends to keys i..Tk-1 instead of 0..i.
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
    const double scale = 1.0 / sqrt((double)d_k);
    double *p = malloc((size_t)Tk * sizeof *p);
    if (p == NULL)
        abort();
    for (int b = 0; b < B; b++) {
        const float *qb = q + (size_t)b * Tq * d_k;
        const float *kb = k + (size_t)b * Tk * d_k;
        const float *vb = v + (size_t)b * Tk * d_v;
        float *ob = out + (size_t)b * Tq * d_v;
        for (int i = 0; i < Tq; i++) {
            /* the mistake: keys first .. Tk-1 are allowed (the future, not the past) */
            const int first = causal ? i : 0;
            const int n = Tk;
            double m = -INFINITY;
            for (int j = 0; j < first; j++)
                p[j] = -INFINITY;
            for (int j = first; j < n; j++) {
                double dot = 0.0;
                for (int e = 0; e < d_k; e++)
                    dot += (double)qb[(size_t)i * d_k + e] * kb[(size_t)j * d_k + e];
                p[j] = dot * scale;
                if (p[j] > m)
                    m = p[j];
            }
            double sum = 0.0;
            for (int j = 0; j < n; j++) {
                p[j] = exp(p[j] - m); /* exp(-inf) = 0 for the blocked keys */
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
