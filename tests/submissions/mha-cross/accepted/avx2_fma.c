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
__attribute__((target("avx2,fma"))) static void
attend(const float *q, const float *k, const float *v, float *ctx, int ld_q, int ld_kv, int ld_ctx,
       int Tq, int Tk, int d_head, const unsigned char *mask, float *p)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    for (int i = 0; i < Tq; i++) {
        const int n_keys = Tk;
        const float *qi = q + (size_t)i * ld_q;
        float mx = -INFINITY;
        for (int j = 0; j < n_keys; j++) {
            if (mask && mask[(size_t)i * Tk + j]) {
                p[j] = -INFINITY;
                continue;
            }
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

void mha_cross(const float *query, const float *key, const float *value, const float *w_q,
               const float *w_k, const float *w_v, const float *w_o, const unsigned char *mask,
               float *out, int B, int Tq, int Tk, int d_model, int num_heads)
{
    const int D = d_model;
    const int d_head = D / num_heads;

    float *q = malloc((size_t)Tq * D * sizeof(float));
    float *k = malloc((size_t)Tk * D * sizeof(float));
    float *v = malloc((size_t)Tk * D * sizeof(float));
    float *ctx = malloc((size_t)Tq * D * sizeof(float));
    float *p = malloc((size_t)Tk * sizeof(float));
    if (!q || !k || !v || !ctx || !p)
        goto done;

    for (int b = 0; b < B; b++) {
        matmul(query + (size_t)b * Tq * D, w_q, q, Tq, D, D);
        matmul(key + (size_t)b * Tk * D, w_k, k, Tk, D, D);
        matmul(value + (size_t)b * Tk * D, w_v, v, Tk, D, D);

        for (int h = 0; h < num_heads; h++) {
            const int c = h * d_head;
            attend(q + c, k + c, v + c, ctx + c, D, D, D, Tq, Tk, d_head, mask, p);
        }

        matmul(ctx, w_o, out + (size_t)b * Tq * D, Tq, D, D);
    }

done:
    free(q);
    free(k);
    free(v);
    free(ctx);
    free(p);
}
