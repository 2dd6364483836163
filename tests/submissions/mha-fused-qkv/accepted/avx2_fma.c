/* Accepted: AVX2 + FMA intrinsics for the projections and the attention inner loops. */
#include <immintrin.h>
#include <math.h>
#include <stdlib.h>

/* Sum of the eight lanes of v. */
__attribute__((target("avx2,fma"))) static float hsum256(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* Dot product of two contiguous float vectors of length n. */
__attribute__((target("avx2,fma"))) static float dot_avx(const float *x, const float *y, int n)
{
    __m256 acc = _mm256_setzero_ps();
    int i = 0;
    for (; i + 8 <= n; i += 8)
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), acc);
    float s = hsum256(acc);
    for (; i < n; i++)
        s = fmaf(x[i], y[i], s);
    return s;
}

/* c = a @ W^T: a is (M, K), c is (M, N), W is stored (out, in) = (N, K). */
/* Each output is a dot product of a row of a with a row of W: both contiguous. */
__attribute__((target("avx2,fma"))) static void matmul(const float *a, const float *w, float *c,
                                                       int M, int N, int K)
{
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++)
            c[(size_t)m * N + n] = dot_avx(a + (size_t)m * K, w + (size_t)n * K, K);
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

void mha_fused_qkv(const float *x, const float *w_qkv, const float *w_o, float *out, int B, int T,
                   int d_model, int n_heads)
{
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
