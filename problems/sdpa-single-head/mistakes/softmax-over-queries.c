/*
 * Known mistake "softmax-over-queries" of problem "sdpa-single-head": softmax normalised over the query axis (each key column sums to 1) instead of over the keys.
 * The reference with that one change; everything is accumulated in double.
 */
#include <math.h>
#include <stdlib.h>

void sdpa(const float *q, const float *k, const float *v, float *out, int B, int Tq, int Tk,
          int d_k, int d_v, int causal)
{
    const double scale = 1.0 / sqrt((double)d_k);
    double *s = malloc((size_t)Tq * Tk * sizeof *s);
    for (int b = 0; b < B; b++) {
        const float *qb = q + (size_t)b * Tq * d_k;
        const float *kb = k + (size_t)b * Tk * d_k;
        const float *vb = v + (size_t)b * Tk * d_v;
        float *ob = out + (size_t)b * Tq * d_v;
        for (int i = 0; i < Tq; i++)
            for (int j = 0; j < Tk; j++) {
                double dot = 0.0;
                for (int e = 0; e < d_k; e++)
                    dot += (double)qb[(size_t)i * d_k + e] * kb[(size_t)j * d_k + e];
                s[(size_t)i * Tk + j] = (causal && j > i) ? -INFINITY : dot * scale;
            }
        for (int j = 0; j < Tk; j++) {
            double m = -INFINITY, sum = 0.0;
            for (int i = 0; i < Tq; i++)
                m = fmax(m, s[(size_t)i * Tk + j]);
            for (int i = 0; i < Tq; i++) {
                s[(size_t)i * Tk + j] = exp(s[(size_t)i * Tk + j] - m);
                sum += s[(size_t)i * Tk + j];
            }
            for (int i = 0; i < Tq; i++)
                s[(size_t)i * Tk + j] /= sum;
        }
        for (int i = 0; i < Tq; i++)
            for (int e = 0; e < d_v; e++) {
                double acc = 0.0;
                for (int j = 0; j < Tk; j++)
                    acc += s[(size_t)i * Tk + j] * vb[(size_t)j * d_v + e];
                ob[(size_t)i * d_v + e] = (float)acc;
            }
    }
    free(s);
}
