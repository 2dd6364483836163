/*
 * Known mistake "softmax-over-queries" of problem "mha-block-postln": attention with the softmax taken over the queries instead of the keys.
 *
 * A variant of the reference that differs only by this mistake; the judge
 * runs it on the sample tests to diagnose wrong submissions.
 *
 * One post-LN attention block:
 *     Q = x @ w_q,  K = x @ w_k,  V = x @ w_v          (weights stored (in, out))
 *     per head h:  A_h = softmax(Q_h K_h^T / sqrt(d_head)) V_h      (no mask)
 *     y   = concat_h(A_h) @ w_o + x                     (residual)
 *     out = LayerNorm(y) over the feature axis, eps = 1e-5,
 *           biased variance inside the square root, no scale or shift.
 *
 * Everything is accumulated in double; only the final values are rounded to
 * float. The code favours clarity over speed: it is the yardstick that
 * student outputs are compared against.
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
            /* The mistake: the softmax runs down each key column (over the
             * queries) instead of along each row. */
            double *S = xmalloc((size_t)T * T * sizeof *S);
            for (int t = 0; t < T; t++)
                for (int s = 0; s < T; s++) {
                    double dot = 0.0;
                    for (int e = 0; e < d_head; e++)
                        dot += q[(size_t)t * d_model + c0 + e] * k[(size_t)s * d_model + c0 + e];
                    S[(size_t)t * T + s] = dot * scale;
                }
            for (int s = 0; s < T; s++) {
                double m = -INFINITY, sum = 0.0;
                for (int t = 0; t < T; t++)
                    if (S[(size_t)t * T + s] > m)
                        m = S[(size_t)t * T + s];
                for (int t = 0; t < T; t++) {
                    S[(size_t)t * T + s] = exp(S[(size_t)t * T + s] - m);
                    sum += S[(size_t)t * T + s];
                }
                for (int t = 0; t < T; t++)
                    S[(size_t)t * T + s] /= sum;
            }
            for (int t = 0; t < T; t++)
                for (int e = 0; e < d_head; e++) {
                    double acc = 0.0;
                    for (int s = 0; s < T; s++)
                        acc += S[(size_t)t * T + s] * v[(size_t)s * d_model + c0 + e];
                    ctx[(size_t)t * d_model + c0 + e] = acc;
                }
            free(S);
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
