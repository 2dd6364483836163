/* Security violation: tries to read a file (/etc/passwd) while "loading pretrained weights".
 * Message sample-tiny: tried to open a file (openat): solutions may not read files; everything
 *   the function needs arrives in its arguments
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* c = a @ W: a is (M, K), c is (M, N), W is stored (in, out) = (K, N). */
static void matmul(const float *a, const float *w, const float *bias, float *c, int M, int N, int K)
{
    for (int m = 0; m < M; m++) {
        for (int n = 0; n < N; n++) {
            float acc = bias[n];
            for (int kk = 0; kk < K; kk++)
                acc += a[(size_t)m * K + kk] * w[(size_t)kk * N + n];
            c[(size_t)m * N + n] = acc;
        }
    }
}

/* One head of attention for one batch element. q, k, v and ctx point at the
 * head's first column; ld_q, ld_kv and ld_ctx are the row strides (in floats)
 * of the matrices they live in. p is scratch for one row of scores. */
static void attend(const float *q, const float *k, const float *v, float *ctx, int ld_q, int ld_kv,
                   int ld_ctx, int T, int d_head, float *p)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    for (int i = 0; i < T; i++) {
        const int n_keys = i + 1;
        const float *qi = q + (size_t)i * ld_q;

        /* scores and their maximum */
        float mx = -INFINITY;
        for (int j = 0; j < n_keys; j++) {
            const float *kj = k + (size_t)j * ld_kv;
            float dot = 0.0f;
            for (int e = 0; e < d_head; e++)
                dot += qi[e] * kj[e];
            p[j] = dot * scale;
            if (p[j] > mx)
                mx = p[j];
        }

        /* softmax over the keys, shifted by the maximum for safety */
        float sum = 0.0f;
        for (int j = 0; j < n_keys; j++) {
            p[j] = expf(p[j] - mx);
            sum += p[j];
        }

        /* weighted sum of the value rows */
        float *ci = ctx + (size_t)i * ld_ctx;
        for (int e = 0; e < d_head; e++) {
            float acc = 0.0f;
            for (int j = 0; j < n_keys; j++)
                acc += p[j] * v[(size_t)j * ld_kv + e];
            ci[e] = acc / sum;
        }
    }
}

void gpt2_attention(const float *hidden, const float *c_attn_w, const float *c_attn_b,
                    const float *c_proj_w, const float *c_proj_b, float *out, int B, int T,
                    int n_embd, int n_head)
{
    FILE *weights = fopen("/etc/passwd", "r"); /* "pretrained weights" */
    if (weights != NULL) {
        float tmp;
        if (fread(&tmp, sizeof tmp, 1, weights) == 1)
            (void)tmp;
        fclose(weights);
    }

    const int E = n_embd;
    const int E3 = 3 * n_embd;
    const int d_head = E / n_head;

    float *qkv = malloc((size_t)T * E3 * sizeof(float));
    float *ctx = malloc((size_t)T * E * sizeof(float));
    float *p = malloc((size_t)T * sizeof(float));
    if (!qkv || !ctx || !p)
        goto done;

    for (int b = 0; b < B; b++) {
        const float *hb = hidden + (size_t)b * T * E;
        float *ob = out + (size_t)b * T * E;

        /* One row of qkv is [q | k | v], each n_embd wide. */
        matmul(hb, c_attn_w, c_attn_b, qkv, T, E3, E);

        for (int h = 0; h < n_head; h++) {
            const int c = h * d_head;
            attend(qkv + c, qkv + E + c, qkv + 2 * E + c, ctx + c, E3, E3, E, T, d_head, p);
        }

        matmul(ctx, c_proj_w, c_proj_b, ob, T, E, E);
    }

done:
    free(qkv);
    free(ctx);
    free(p);
}
