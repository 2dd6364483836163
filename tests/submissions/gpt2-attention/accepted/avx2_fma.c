/* Accepted: AVX2 + FMA intrinsics for the projections and the attention inner loops. */
#include <immintrin.h>
#include <math.h>
#include <stdlib.h>

/* c = a @ W: a is (M, K), c is (M, N), W is stored (in, out) = (K, N). */
/* Vectorised over n: c[m][n..n+7] += a[m][kk] * w[kk][n..n+7]. */
__attribute__((target("avx2,fma"))) static void
matmul(const float *a, const float *w, const float *bias, float *c, int M, int N, int K)
{
    for (int m = 0; m < M; m++) {
        float *cm = c + (size_t)m * N;
        const float *am = a + (size_t)m * K;
        int n = 0;
        for (; n + 8 <= N; n += 8) {
            __m256 acc = _mm256_loadu_ps(bias + n);
            for (int kk = 0; kk < K; kk++)
                acc = _mm256_fmadd_ps(_mm256_set1_ps(am[kk]),
                                      _mm256_loadu_ps(w + (size_t)kk * N + n), acc);
            _mm256_storeu_ps(cm + n, acc);
        }
        for (; n < N; n++) { /* leftover columns */
            float acc = bias[n];
            for (int kk = 0; kk < K; kk++)
                acc = fmaf(am[kk], w[(size_t)kk * N + n], acc);
            cm[n] = acc;
        }
    }
}

/* Sum of the eight lanes of v. */
__attribute__((target("avx2,fma"))) static float lanes_sum(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* One head of attention for one batch element. q, k, v and ctx point at the
 * head's first column; ld_q, ld_kv and ld_ctx are the row strides (in floats)
 * of the matrices they live in. p is scratch for one row of scores. */
__attribute__((target("avx2,fma"))) static void attend(const float *q, const float *k,
                                                       const float *v, float *ctx, int ld_q,
                                                       int ld_kv, int ld_ctx, int T, int d_head,
                                                       float *p)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    for (int i = 0; i < T; i++) {
        const int n_keys = i + 1;
        const float *qi = q + (size_t)i * ld_q;
        float mx = -INFINITY;
        for (int j = 0; j < n_keys; j++) {
            const float *kj = k + (size_t)j * ld_kv;
            __m256 acc = _mm256_setzero_ps();
            int e = 0;
            for (; e + 8 <= d_head; e += 8)
                acc = _mm256_fmadd_ps(_mm256_loadu_ps(qi + e), _mm256_loadu_ps(kj + e), acc);
            float dot = lanes_sum(acc);
            for (; e < d_head; e++)
                dot = fmaf(qi[e], kj[e], dot);
            p[j] = dot * scale;
            if (p[j] > mx)
                mx = p[j];
        }
        float sum = 0.0f;
        for (int j = 0; j < n_keys; j++) {
            p[j] = expf(p[j] - mx);
            sum += p[j];
        }
        const float inv = 1.0f / sum;
        for (int j = 0; j < n_keys; j++)
            p[j] *= inv;

        /* ci = sum_j p[j] * v_j, eight features at a time */
        float *ci = ctx + (size_t)i * ld_ctx;
        int e = 0;
        for (; e + 8 <= d_head; e += 8) {
            __m256 acc = _mm256_setzero_ps();
            for (int j = 0; j < n_keys; j++)
                acc = _mm256_fmadd_ps(_mm256_set1_ps(p[j]),
                                      _mm256_loadu_ps(v + (size_t)j * ld_kv + e), acc);
            _mm256_storeu_ps(ci + e, acc);
        }
        for (; e < d_head; e++) {
            float acc = 0.0f;
            for (int j = 0; j < n_keys; j++)
                acc = fmaf(p[j], v[(size_t)j * ld_kv + e], acc);
            ci[e] = acc;
        }
    }
}

void gpt2_attention(const float *hidden, const float *c_attn_w, const float *c_attn_b,
                    const float *c_proj_w, const float *c_proj_b, float *out, int B, int T,
                    int n_embd, int n_head)
{
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
