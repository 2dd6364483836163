/* Wrong answer: the running maximum starts at 0 instead of -inf; exact unless every score of a
 * row is below about -88, where the weights lose their precision and then underflow to 0/0.
 * Softmax computed in float, the rest in double.
 * Only a single token shows it here (sample-single-token-far-below-zero): its one weight is
 *   exactly 1 whatever its score, while a row of several keys that far below zero puts correct
 *   float code past the tolerance (docs/tolerances.md).
 * Caught by: tests
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The signature, exactly as the problem states it. */
void mha_backward(const float *x, const float *w_q, const float *w_k, const float *w_v,
                  const float *w_o, const float *d_out, float *d_x, float *d_w_q, float *d_w_k,
                  float *d_w_v, float *d_w_o, int B, int T, int d_model, int n_heads);

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (p == NULL)
        abort();
    return p;
}

/* dst (rows, D) = src (rows, D) @ w^T, w stored (out, in) = (D, D) */
static void linear(const float *src, const float *w, double *dst, int rows, int D)
{
    for (int t = 0; t < rows; t++)
        for (int j = 0; j < D; j++) {
            double acc = 0.0;
            for (int i = 0; i < D; i++)
                acc += (double)src[(size_t)t * D + i] * w[(size_t)j * D + i];
            dst[(size_t)t * D + j] = acc;
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

void mha_backward(const float *x, const float *w_q, const float *w_k, const float *w_v,
                  const float *w_o, const float *d_out, float *d_x, float *d_w_q, float *d_w_k,
                  float *d_w_v, float *d_w_o, int B, int T, int d_model, int n_heads)
{
    const int D = d_model, d = d_model / n_heads;
    const double c = 1.0 / sqrt((double)d);
    const size_t TD = (size_t)T * D, DD = (size_t)D * D;
    double *q = xcalloc(TD, sizeof *q), *k = xcalloc(TD, sizeof *k), *v = xcalloc(TD, sizeof *v);
    double *ctx = xcalloc(TD, sizeof *ctx), *dctx = xcalloc(TD, sizeof *dctx);
    double *dq = xcalloc(TD, sizeof *dq), *dk = xcalloc(TD, sizeof *dk);
    double *dv = xcalloc(TD, sizeof *dv);
    double *P = xcalloc((size_t)T * T, sizeof *P), *dP = xcalloc((size_t)T * T, sizeof *dP);
    /* weight gradients sum over the batch: accumulate in double, round once */
    double *gq = xcalloc(DD, sizeof *gq), *gk = xcalloc(DD, sizeof *gk);
    double *gv = xcalloc(DD, sizeof *gv), *go = xcalloc(DD, sizeof *go);

    for (int b = 0; b < B; b++) {
        const float *xb = x + (size_t)b * TD;
        const float *gb = d_out + (size_t)b * TD;
        linear(xb, w_q, q, T, D);
        linear(xb, w_k, k, T, D);
        linear(xb, w_v, v, T, D);
        memset(dq, 0, TD * sizeof *dq);
        memset(dk, 0, TD * sizeof *dk);
        memset(dv, 0, TD * sizeof *dv);

        for (int h = 0; h < n_heads; h++) {
            const int c0 = h * d;
            /* forward: P = softmax(Q_h K_h^T c), A_h = P V_h into ctx */
            for (int i = 0; i < T; i++) {
                for (int j = 0; j < T; j++) {
                    double s = 0.0;
                    for (int e = 0; e < d; e++)
                        s += q[(size_t)i * D + c0 + e] * k[(size_t)j * D + c0 + e];
                    P[(size_t)i * T + j] = s * c;
                }
                weights_row(P + (size_t)i * T, NULL, T, T);
                for (int e = 0; e < d; e++) {
                    double acc = 0.0;
                    for (int j = 0; j < T; j++)
                        acc += P[(size_t)i * T + j] * v[(size_t)j * D + c0 + e];
                    ctx[(size_t)i * D + c0 + e] = acc;
                }
            }
            /* dC_h = (d_out W_o) restricted to the head's columns */
            for (int i = 0; i < T; i++)
                for (int e = 0; e < d; e++) {
                    double acc = 0.0;
                    for (int j = 0; j < D; j++)
                        acc += (double)gb[(size_t)i * D + j] * w_o[(size_t)j * D + c0 + e];
                    dctx[(size_t)i * D + c0 + e] = acc;
                }
            /* dP = dA V^T, dV = P^T dA */
            for (int i = 0; i < T; i++)
                for (int j = 0; j < T; j++) {
                    double acc = 0.0;
                    for (int e = 0; e < d; e++)
                        acc += dctx[(size_t)i * D + c0 + e] * v[(size_t)j * D + c0 + e];
                    dP[(size_t)i * T + j] = acc;
                }
            for (int j = 0; j < T; j++)
                for (int e = 0; e < d; e++) {
                    double acc = 0.0;
                    for (int i = 0; i < T; i++)
                        acc += P[(size_t)i * T + j] * dctx[(size_t)i * D + c0 + e];
                    dv[(size_t)j * D + c0 + e] = acc;
                }
            /* dS = P * (dP - rowsum(dP * P)), stored over dP */
            for (int i = 0; i < T; i++) {
                double r = 0.0;
                for (int j = 0; j < T; j++)
                    r += dP[(size_t)i * T + j] * P[(size_t)i * T + j];
                for (int j = 0; j < T; j++)
                    dP[(size_t)i * T + j] = P[(size_t)i * T + j] * (dP[(size_t)i * T + j] - r);
            }
            /* dQ = c dS K, dK = c dS^T Q */
            for (int i = 0; i < T; i++)
                for (int e = 0; e < d; e++) {
                    double aq = 0.0, ak = 0.0;
                    for (int j = 0; j < T; j++) {
                        aq += dP[(size_t)i * T + j] * k[(size_t)j * D + c0 + e];
                        ak += dP[(size_t)j * T + i] * q[(size_t)j * D + c0 + e];
                    }
                    dq[(size_t)i * D + c0 + e] = c * aq;
                    dk[(size_t)i * D + c0 + e] = c * ak;
                }
        }

        /* weight gradients: dW[j][i] += sum_t dY[t][j] X[t][i] */
        for (int j = 0; j < D; j++)
            for (int i = 0; i < D; i++) {
                double aq = 0.0, ak = 0.0, av = 0.0, ao = 0.0;
                for (int t = 0; t < T; t++) {
                    const double xi = xb[(size_t)t * D + i];
                    aq += dq[(size_t)t * D + j] * xi;
                    ak += dk[(size_t)t * D + j] * xi;
                    av += dv[(size_t)t * D + j] * xi;
                    ao += (double)gb[(size_t)t * D + j] * ctx[(size_t)t * D + i];
                }
                gq[(size_t)j * D + i] += aq;
                gk[(size_t)j * D + i] += ak;
                gv[(size_t)j * D + i] += av;
                go[(size_t)j * D + i] += ao;
            }
        /* dx = dQ W_q + dK W_k + dV W_v */
        float *dxb = d_x + (size_t)b * TD;
        for (int t = 0; t < T; t++)
            for (int i = 0; i < D; i++) {
                double acc = 0.0;
                for (int j = 0; j < D; j++)
                    acc += dq[(size_t)t * D + j] * w_q[(size_t)j * D + i] +
                           dk[(size_t)t * D + j] * w_k[(size_t)j * D + i] +
                           dv[(size_t)t * D + j] * w_v[(size_t)j * D + i];
                dxb[(size_t)t * D + i] = (float)acc;
            }
    }
    for (size_t i = 0; i < DD; i++) {
        d_w_q[i] = (float)gq[i];
        d_w_k[i] = (float)gk[i];
        d_w_v[i] = (float)gv[i];
        d_w_o[i] = (float)go[i];
    }

    free(q);
    free(k);
    free(v);
    free(ctx);
    free(dctx);
    free(dq);
    free(dk);
    free(dv);
    free(P);
    free(dP);
    free(gq);
    free(gk);
    free(gv);
    free(go);
}
