/* Wrong answer: no causal mask: every query attends to all T keys.
 * Hint: position t may only look at positions 0..t.
 * Diagnosis: no-causal-mask
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void causal_attention_long(const float *q, const float *k, const float *v, float *out, int H, int T,
                           int d_head);

void causal_attention_long(const float *q, const float *k, const float *v, float *out, int H, int T,
                           int d_head)
{
    const double scale = 1.0 / sqrt((double)d_head);
    double *p = malloc((size_t)T * sizeof *p);
    double *acc = malloc((size_t)d_head * sizeof *acc);
    if (p == NULL || acc == NULL)
        abort();
    for (int h = 0; h < H; h++) {
        const float *qh = q + (size_t)h * T * d_head;
        const float *kh = k + (size_t)h * T * d_head;
        const float *vh = v + (size_t)h * T * d_head;
        float *oh = out + (size_t)h * T * d_head;
        for (int t = 0; t < T; t++) {
            const float *qt = qh + (size_t)t * d_head;
            double m = -INFINITY;
            for (int s = 0; s < T; s++) {
                const float *ks = kh + (size_t)s * d_head;
                double dot = 0.0;
                for (int e = 0; e < d_head; e++)
                    dot += (double)qt[e] * ks[e];
                p[s] = dot * scale;
                if (p[s] > m)
                    m = p[s];
            }
            double sum = 0.0;
            for (int e = 0; e < d_head; e++)
                acc[e] = 0.0;
            for (int s = 0; s < T; s++) {
                const double w = exp(p[s] - m);
                const float *vs = vh + (size_t)s * d_head;
                sum += w;
                for (int e = 0; e < d_head; e++)
                    acc[e] += w * vs[e];
            }
            for (int e = 0; e < d_head; e++)
                oh[(size_t)t * d_head + e] = (float)(acc[e] / sum);
        }
    }
    free(p);
    free(acc);
}
