/* Wrong answer: the blocked keys' scores are set to the finite -100 instead of being left out;
 * exact unless every allowed score of a row is below about -90, where the excluded keys take a
 * real share of the weight.
 * Softmax computed in float, the rest in double.
 * Caught by: tests
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void mha_cross(const float *query, const float *key, const float *value, const float *w_q,
               const float *w_k, const float *w_v, const float *w_o, const unsigned char *mask,
               float *out, int B, int Tq, int Tk, int d_model, int num_heads);

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        abort();
    return p;
}

/* dst[t][j] = sum_i src[t][i] * w[j][i]: src is (rows, dim), w is (dim, dim)
 * stored (out, in). */
static void project_out_in(const float *src, const float *w, double *dst, int rows, int dim)
{
    for (int t = 0; t < rows; t++) {
        for (int j = 0; j < dim; j++) {
            double acc = 0.0;
            for (int i = 0; i < dim; i++)
                acc += (double)src[(size_t)t * dim + i] * (double)w[(size_t)j * dim + i];
            dst[(size_t)t * dim + j] = acc;
        }
    }
}

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

void mha_cross(const float *query, const float *key, const float *value, const float *w_q,
               const float *w_k, const float *w_v, const float *w_o, const unsigned char *mask,
               float *out, int B, int Tq, int Tk, int d_model, int num_heads)
{
    const int D = d_model;
    const int d_head = d_model / num_heads;
    const double scale = 1.0 / sqrt((double)d_head);

    double *q = xmalloc((size_t)Tq * D * sizeof *q);
    double *k = xmalloc((size_t)Tk * D * sizeof *k);
    double *v = xmalloc((size_t)Tk * D * sizeof *v);
    double *ctx = xmalloc((size_t)Tq * D * sizeof *ctx);
    double *p = xmalloc((size_t)Tk * sizeof *p);

    for (int b = 0; b < B; b++) {
        project_out_in(query + (size_t)b * Tq * D, w_q, q, Tq, D);
        project_out_in(key + (size_t)b * Tk * D, w_k, k, Tk, D);
        project_out_in(value + (size_t)b * Tk * D, w_v, v, Tk, D);

        for (int h = 0; h < num_heads; h++) {
            const int c0 = h * d_head;
            for (int i = 0; i < Tq; i++) {
                const unsigned char *mrow = mask ? mask + (size_t)i * Tk : NULL;
                /* Blocked keys get weight 0; the maximum is over open keys. */
                for (int j = 0; j < Tk; j++) {
                    double dot = 0.0;
                    for (int e = 0; e < d_head; e++)
                        dot += q[(size_t)i * D + c0 + e] * k[(size_t)j * D + c0 + e];
                    p[j] = dot * scale;
                }
                weights_row(p, mrow, Tk, Tk);
                for (int e = 0; e < d_head; e++) {
                    double acc = 0.0;
                    for (int j = 0; j < Tk; j++)
                        acc += p[j] * v[(size_t)j * D + c0 + e];
                    ctx[(size_t)i * D + c0 + e] = acc;
                }
            }
        }

        float *ob = out + (size_t)b * Tq * D;
        for (int i = 0; i < Tq; i++) {
            for (int j = 0; j < D; j++) {
                double acc = 0.0;
                for (int c = 0; c < D; c++)
                    acc += ctx[(size_t)i * D + c] * (double)w_o[(size_t)j * D + c];
                ob[(size_t)i * D + j] = (float)acc;
            }
        }
    }

    free(q);
    free(k);
    free(v);
    free(ctx);
    free(p);
}
