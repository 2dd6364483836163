/* Wrong answer: causal mask off by one: query i attends to keys 0..i-1, not to itself (query 0 sees nothing).
 * Hint: in a causal mask a position may look at itself: query i sees keys 0..i inclusive.
 * Diagnosis: causal-off-by-one
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
            /* keys 0 .. n-1 are allowed */
            const int n = causal ? i : Tk;
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
