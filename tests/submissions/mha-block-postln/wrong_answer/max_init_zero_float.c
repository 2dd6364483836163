/* Wrong answer: the running maximum starts at 0 instead of -inf; exact unless every score of a
 * row is below about -88, where the weights lose their precision and then underflow to 0/0.
 * Softmax computed in float, the rest in double.
 * Caught by: tests
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void mha_block(const float *x, const float *w_q, const float *w_k, const float *w_v,
               const float *w_o, float *out, int N, int T, int d_model, int num_heads);

/* Aborts loudly instead of producing a silently wrong expected output. */
static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        abort();
    return p;
}

/* dst[t][j] = sum_i src[t][i] * w[i][j] for a (rows, dim) block of src and a
 * (dim, dim) matrix w stored (in, out). */
static void project_in_out(const float *src, const float *w, double *dst, int rows, int dim)
{
    for (int t = 0; t < rows; t++) {
        for (int j = 0; j < dim; j++) {
            double acc = 0.0;
            for (int i = 0; i < dim; i++)
                acc += (double)src[(size_t)t * dim + i] * (double)w[(size_t)i * dim + j];
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
    float m = 0.0f;
    for (int j = 0; j < n; j++)
        if (!key_blocked(blocked, n_open, j) && (float)p[j] > m)
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

void mha_block(const float *x, const float *w_q, const float *w_k, const float *w_v,
               const float *w_o, float *out, int N, int T, int d_model, int num_heads)
{
    const int d_head = d_model / num_heads;
    const double scale = 1.0 / sqrt((double)d_head);
    const size_t block = (size_t)T * d_model; /* elements of one sequence */

    double *q = xmalloc(block * sizeof *q);
    double *k = xmalloc(block * sizeof *k);
    double *v = xmalloc(block * sizeof *v);
    double *ctx = xmalloc(block * sizeof *ctx); /* concatenated head outputs */
    double *p = xmalloc((size_t)T * sizeof *p); /* one row of attention weights */
    double *y = xmalloc((size_t)d_model * sizeof *y);

    for (int n = 0; n < N; n++) {
        const float *xn = x + (size_t)n * block;
        float *on = out + (size_t)n * block;

        project_in_out(xn, w_q, q, T, d_model);
        project_in_out(xn, w_k, k, T, d_model);
        project_in_out(xn, w_v, v, T, d_model);

        /* Head h owns the feature columns [h*d_head, (h+1)*d_head). */
        for (int h = 0; h < num_heads; h++) {
            const int c0 = h * d_head;
            for (int t = 0; t < T; t++) {
                /* Scores of query t against every key s, and their maximum. */
                for (int s = 0; s < T; s++) {
                    double dot = 0.0;
                    for (int e = 0; e < d_head; e++)
                        dot += q[(size_t)t * d_model + c0 + e] * k[(size_t)s * d_model + c0 + e];
                    p[s] = dot * scale;
                }
                weights_row(p, NULL, T, T);
                /* Weighted sum of the values. */
                for (int e = 0; e < d_head; e++) {
                    double acc = 0.0;
                    for (int s = 0; s < T; s++)
                        acc += p[s] * v[(size_t)s * d_model + c0 + e];
                    ctx[(size_t)t * d_model + c0 + e] = acc;
                }
            }
        }

        for (int t = 0; t < T; t++) {
            /* Output projection plus the residual connection. */
            for (int j = 0; j < d_model; j++) {
                double acc = (double)xn[(size_t)t * d_model + j];
                for (int i = 0; i < d_model; i++)
                    acc += ctx[(size_t)t * d_model + i] * (double)w_o[(size_t)i * d_model + j];
                y[j] = acc;
            }
            /* LayerNorm: mean, biased variance (divide by d_model), eps inside sqrt. */
            double mean = 0.0;
            for (int j = 0; j < d_model; j++)
                mean += y[j];
            mean /= d_model;
            double var = 0.0;
            for (int j = 0; j < d_model; j++)
                var += (y[j] - mean) * (y[j] - mean);
            var /= d_model;
            const double inv_std = 1.0 / sqrt(var + 1e-5);
            for (int j = 0; j < d_model; j++)
                on[(size_t)t * d_model + j] = (float)((y[j] - mean) * inv_std);
        }
    }

    free(q);
    free(k);
    free(v);
    free(ctx);
    free(p);
    free(y);
}
