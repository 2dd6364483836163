/* Wrong answer: the future (causal) keys' scores are set to the finite -100 instead of being
 * left out; exact unless every allowed score of a row is below about -90, where the excluded
 * keys take a real share of the weight.
 * Softmax computed in float, the rest in double.
 * Caught by: tests
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void causal_attention_long(const float *q, const float *k, const float *v, float *out, int H, int T,
                           int d_head);

/* Key j of a row is left out of the softmax when j >= n_open (a causal
 * future key, an unwritten cache slot) or blocked[j] != 0 (padding, a mask;
 * blocked may be NULL). */
static int key_blocked(const unsigned char *blocked, int n_open, int j)
{
    return j >= n_open || (blocked != NULL && blocked[j]);
}

/* One row of n scores becomes its softmax weights, in float. */
static void weights_row(double *p, const unsigned char *blocked, int n_open, int n)
{
    float m = -INFINITY;
    for (int j = 0; j < n; j++) {
        if (key_blocked(blocked, n_open, j))
            p[j] = -100.0f;
        if ((float)p[j] > m)
            m = (float)p[j];
    }
    float sum = 0.0f;
    for (int j = 0; j < n; j++) {
        p[j] = expf((float)p[j] - m);
        sum += (float)p[j];
    }
    for (int j = 0; j < n; j++)
        p[j] /= sum;
}

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
            for (int s = 0; s < T; s++) {
                const float *ks = kh + (size_t)s * d_head;
                double dot = 0.0;
                for (int e = 0; e < d_head; e++)
                    dot += (double)qt[e] * ks[e];
                p[s] = dot * scale;
            }
            weights_row(p, NULL, t + 1, T);
            for (int e = 0; e < d_head; e++)
                acc[e] = 0.0;
            for (int s = 0; s <= t; s++) {
                const double w = p[s];
                const float *vs = vh + (size_t)s * d_head;
                for (int e = 0; e < d_head; e++)
                    acc[e] += w * vs[e];
            }
            for (int e = 0; e < d_head; e++)
                oh[(size_t)t * d_head + e] = (float)acc[e];
        }
    }
    free(p);
    free(acc);
}
