/* Memory limit: a "history" buffer grown sixteenfold with realloc on every pass of a loop until
 * realloc fails; the NULL result is then written to.
 *
 * Sixteenfold, not doubling: the harness fills every fresh byte (0xFF), and a first touch costs
 * about 6 ms of CPU per MiB in page faults on the CI machines. Doubling up to 128 MiB came to
 * 0.7 s of the 1 s CPU limit, and a loaded machine once judged it time_limit. This way 16 MiB
 * is filled before the failing request, and the verdict is the failed allocation's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* c = a @ W^T: a is (M, K), c is (M, N), W is stored (out, in) = (N, K). */
static void matmul(const float *a, const float *w, float *c, int M, int N, int K)
{
    for (int m = 0; m < M; m++) {
        for (int n = 0; n < N; n++) {
            float acc = 0.0f;
            for (int kk = 0; kk < K; kk++)
                acc += a[(size_t)m * K + kk] * w[(size_t)n * K + kk];
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

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
    /* keep a history of all activations; grows forever */
    size_t cap = 1 << 20;
    char *history = malloc(cap);
    for (;;) {
        char *bigger = realloc(history, 16 * cap);
        history = bigger;              /* NULL once realloc fails */
        memset(history + cap, 0, cap); /* touch the start of the new part */
        cap *= 16;
    }

    const int D = d_model;
    const int D3 = 3 * d_model;
    const int d_head = D / n_heads;

    float *qkv = malloc((size_t)T * D3 * sizeof(float));
    float *ctx = malloc((size_t)T * D * sizeof(float));
    float *p = malloc((size_t)T * sizeof(float));
    if (!qkv || !ctx || !p)
        goto done;

    for (int b = 0; b < B; b++) {
        const float *xb = x + (size_t)b * T * D;
        float *ob = out + (size_t)b * T * D;

        /* qkv = x @ w_qkv^T; a row of qkv is [q | k | v]. */
        matmul(xb, w_qkv, qkv, T, D3, D);

        for (int h = 0; h < n_heads; h++) {
            const int c = h * d_head;
            attend(qkv + c, qkv + D + c, qkv + 2 * D + c, ctx + c, D3, D3, D, T, d_head, p);
        }

        matmul(ctx, w_o, ob, T, D, D);
    }

done:
    free(qkv);
    free(ctx);
    free(p);
}
