/* Wrong answer: the future (causal) keys' scores are set to the finite -1e4 instead of being
 * left out; exact unless every allowed score of a row is below about -9990, where the excluded
 * keys take a real share of the weight.
 * Softmax computed in float, the rest in double.
 * Caught by: tests
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void gpt2_attention(const float *hidden, const float *c_attn_w, const float *c_attn_b,
                    const float *c_proj_w, const float *c_proj_b, float *out, int B, int T,
                    int n_embd, int n_head);

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (p == NULL)
        abort();
    return p;
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
            p[j] = -1e4f;
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

void gpt2_attention(const float *hidden, const float *c_attn_w, const float *c_attn_b,
                    const float *c_proj_w, const float *c_proj_b, float *out, int B, int T,
                    int n_embd, int n_head)
{
    const int E = n_embd;
    const int E3 = 3 * n_embd;
    const int d_head = n_embd / n_head;
    const double scale = 1.0 / sqrt((double)d_head);

    double *qkv = xmalloc((size_t)T * E3 * sizeof *qkv); /* (T, 3E) of one batch */
    double *ctx = xmalloc((size_t)T * E * sizeof *ctx);  /* merged heads (T, E) */
    double *p = xmalloc((size_t)T * sizeof *p);

    for (int b = 0; b < B; b++) {
        const float *hb = hidden + (size_t)b * T * E;
        float *ob = out + (size_t)b * T * E;

        /* qkv[t][j] = c_attn_b[j] + sum_i hidden[t][i] * c_attn_w[i][j] */
        for (int t = 0; t < T; t++) {
            for (int j = 0; j < E3; j++) {
                double acc = (double)c_attn_b[j];
                for (int i = 0; i < E; i++)
                    acc += (double)hb[(size_t)t * E + i] * (double)c_attn_w[(size_t)i * E3 + j];
                qkv[(size_t)t * E3 + j] = acc;
            }
        }

        for (int h = 0; h < n_head; h++) {
            /* Column offsets of head h inside the q, k and v slices. */
            const int qc = 0 * E + h * d_head;
            const int kc = 1 * E + h * d_head;
            const int vc = 2 * E + h * d_head;
            for (int t = 0; t < T; t++) {
                /* Causal: only keys s = 0..t take part. */
                for (int s = 0; s < T; s++) {
                    double dot = 0.0;
                    for (int e = 0; e < d_head; e++)
                        dot += qkv[(size_t)t * E3 + qc + e] * qkv[(size_t)s * E3 + kc + e];
                    p[s] = dot * scale;
                }
                weights_row(p, NULL, t + 1, T);
                for (int e = 0; e < d_head; e++) {
                    double acc = 0.0;
                    for (int s = 0; s <= t; s++)
                        acc += p[s] * qkv[(size_t)s * E3 + vc + e];
                    ctx[(size_t)t * E + h * d_head + e] = acc;
                }
            }
        }

        /* out[t][j] = c_proj_b[j] + sum_i ctx[t][i] * c_proj_w[i][j] */
        for (int t = 0; t < T; t++) {
            for (int j = 0; j < E; j++) {
                double acc = (double)c_proj_b[j];
                for (int i = 0; i < E; i++)
                    acc += ctx[(size_t)t * E + i] * (double)c_proj_w[(size_t)i * E + j];
                ob[(size_t)t * E + j] = (float)acc;
            }
        }
    }

    free(qkv);
    free(ctx);
    free(p);
}
