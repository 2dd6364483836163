/*
 * Known mistake "scale-by-sqrt-d-model" of problem "gpt2-attention": attention scaled by 1/sqrt(d_model) instead of 1/sqrt(d_head).
 *
 * A variant of the reference that differs only by this mistake; the judge
 * runs it on the sample tests to diagnose wrong submissions.
 *
 * GPT-2's causal self-attention with a fused QKV projection, weights stored
 * (in, out) as in GPT-2 checkpoints (HuggingFace's Conv1D):
 *     qkv    = hidden @ c_attn_w + c_attn_b          (B, T, 3*n_embd)
 *     q, k, v = qkv[..., 0:E], qkv[..., E:2E], qkv[..., 2E:3E]   (E = n_embd)
 *     per head h:  A_h = softmax(q_h k_h^T / sqrt(d_head) + causal) v_h
 *     out    = concat_h(A_h) @ c_proj_w + c_proj_b
 * Query position t attends to key positions 0..t only.
 *
 * Everything is accumulated in double; only the outputs are rounded to float.
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

void gpt2_attention(const float *hidden, const float *c_attn_w, const float *c_attn_b,
                    const float *c_proj_w, const float *c_proj_b, float *out, int B, int T,
                    int n_embd, int n_head)
{
    const int E = n_embd;
    const int E3 = 3 * n_embd;
    const int d_head = n_embd / n_head;
    const double scale = 1.0 / sqrt((double)n_embd);

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
                double m = -INFINITY;
                for (int s = 0; s <= t; s++) {
                    double dot = 0.0;
                    for (int e = 0; e < d_head; e++)
                        dot += qkv[(size_t)t * E3 + qc + e] * qkv[(size_t)s * E3 + kc + e];
                    p[s] = dot * scale;
                    if (p[s] > m)
                        m = p[s];
                }
                double sum = 0.0;
                for (int s = 0; s <= t; s++) {
                    p[s] = exp(p[s] - m);
                    sum += p[s];
                }
                for (int e = 0; e < d_head; e++) {
                    double acc = 0.0;
                    for (int s = 0; s <= t; s++)
                        acc += p[s] * qkv[(size_t)s * E3 + vc + e];
                    ctx[(size_t)t * E + h * d_head + e] = acc / sum;
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
