/* Wrong answer: the row maximum is taken over every key, the future (causal) ones included;
 * exact unless such a key's score exceeds every allowed one by more than about 88, where every
 * allowed weight underflows (0/0).
 * Softmax computed in float, the rest in double.
 * Caught by: tests
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void sdpa(const float *q, const float *k, const float *v, float *out, int B, int Tq, int Tk,
          int d_k, int d_v, int causal);

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
    for (int j = 0; j < n; j++)
        if ((float)p[j] > m)
            m = (float)p[j];
    float sum = 0.0f;
    for (int j = 0; j < n; j++) {
        const float w = key_blocked(blocked, n_open, j) ? 0.0f : expf((float)p[j] - m);
        p[j] = w;
        sum += w;
    }
    for (int j = 0; j < n; j++)
        p[j] /= sum;
}

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
            const int n = causal ? i + 1 : Tk;
            for (int j = 0; j < Tk; j++) {
                double dot = 0.0;
                for (int e = 0; e < d_k; e++)
                    dot += (double)qb[(size_t)i * d_k + e] * kb[(size_t)j * d_k + e];
                p[j] = dot * scale;
            }
            weights_row(p, NULL, n, Tk);
            for (int e = 0; e < d_v; e++) {
                double acc = 0.0;
                for (int j = 0; j < n; j++)
                    acc += p[j] * vb[(size_t)j * d_v + e];
                ob[(size_t)i * d_v + e] = (float)acc;
            }
        }
    }
    free(p);
}
