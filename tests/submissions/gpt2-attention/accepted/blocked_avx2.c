/* Accepted: cache-blocked AVX2/FMA GEMMs (6x16 register tile, packed weight panels), causal tiles skipped.
 *
 * Every product here -- the two projections, Q K^T and P V of each head --
 * goes through one 6x16 micro-kernel: 12 ymm accumulators (6 rows x 2
 * vectors of 8), 2 loads of B and 6 broadcasts of A per step of k, which
 * uses 15 of the 16 ymm registers and keeps both FMA units busy.
 * expf is a vectorised polynomial (about 2 ulp, far inside the tolerance).
 */
#include <immintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MR 6   /* rows of the register tile */
#define NR 16  /* columns of the register tile: two ymm vectors */
#define KC 256 /* k-block: a 16-column weight panel (KC x NR, 16 KiB) stays in L1 */
#define MC 96  /* row block: MC x KC of A (96 KiB) stays in L2 while the panels stream */
#define NC 768 /* column block: the packed KC x NC weights (768 KiB) stay in L2/L3 */

#define TARGET __attribute__((target("avx2,fma")))

/* c[MR x NR] (+)= a[MR x K] * b[K x NR]. Row r of a starts at a + r*lda (rows
 * past mr repeat row mr - 1: their results are computed and thrown away), row
 * kk of b at b + kk*ldb. Only the top-left mr x nr corner of c is written;
 * accumulate adds to what c holds, otherwise c is overwritten. */
TARGET static void kernel_6x16(int K, const float *a, int lda, const float *b, int ldb, float *c,
                               int ldc, int mr, int nr, int accumulate)
{
    const float *a0 = a;
    const float *a1 = a + (size_t)(mr > 1 ? 1 : mr - 1) * lda;
    const float *a2 = a + (size_t)(mr > 2 ? 2 : mr - 1) * lda;
    const float *a3 = a + (size_t)(mr > 3 ? 3 : mr - 1) * lda;
    const float *a4 = a + (size_t)(mr > 4 ? 4 : mr - 1) * lda;
    const float *a5 = a + (size_t)(mr > 5 ? 5 : mr - 1) * lda;
    __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
    __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
    __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
    __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
    __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
    __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
    for (int kk = 0; kk < K; kk++) {
        const __m256 b0 = _mm256_loadu_ps(b);
        const __m256 b1 = _mm256_loadu_ps(b + 8);
        __m256 x;
        x = _mm256_broadcast_ss(a0 + kk);
        c00 = _mm256_fmadd_ps(x, b0, c00);
        c01 = _mm256_fmadd_ps(x, b1, c01);
        x = _mm256_broadcast_ss(a1 + kk);
        c10 = _mm256_fmadd_ps(x, b0, c10);
        c11 = _mm256_fmadd_ps(x, b1, c11);
        x = _mm256_broadcast_ss(a2 + kk);
        c20 = _mm256_fmadd_ps(x, b0, c20);
        c21 = _mm256_fmadd_ps(x, b1, c21);
        x = _mm256_broadcast_ss(a3 + kk);
        c30 = _mm256_fmadd_ps(x, b0, c30);
        c31 = _mm256_fmadd_ps(x, b1, c31);
        x = _mm256_broadcast_ss(a4 + kk);
        c40 = _mm256_fmadd_ps(x, b0, c40);
        c41 = _mm256_fmadd_ps(x, b1, c41);
        x = _mm256_broadcast_ss(a5 + kk);
        c50 = _mm256_fmadd_ps(x, b0, c50);
        c51 = _mm256_fmadd_ps(x, b1, c51);
        b += ldb;
    }
    /* A full tile goes straight to c; an edge tile through a buffer, so that
     * nothing outside the mr x nr corner is touched. */
    float buf[MR * NR];
    const int full = mr == MR && nr == NR;
    float *t = full ? c : buf;
    const int ldt = full ? ldc : NR;
    if (full && accumulate) {
        c00 = _mm256_add_ps(c00, _mm256_loadu_ps(t + 0 * ldt));
        c01 = _mm256_add_ps(c01, _mm256_loadu_ps(t + 0 * ldt + 8));
        c10 = _mm256_add_ps(c10, _mm256_loadu_ps(t + 1 * ldt));
        c11 = _mm256_add_ps(c11, _mm256_loadu_ps(t + 1 * ldt + 8));
        c20 = _mm256_add_ps(c20, _mm256_loadu_ps(t + 2 * ldt));
        c21 = _mm256_add_ps(c21, _mm256_loadu_ps(t + 2 * ldt + 8));
        c30 = _mm256_add_ps(c30, _mm256_loadu_ps(t + 3 * ldt));
        c31 = _mm256_add_ps(c31, _mm256_loadu_ps(t + 3 * ldt + 8));
        c40 = _mm256_add_ps(c40, _mm256_loadu_ps(t + 4 * ldt));
        c41 = _mm256_add_ps(c41, _mm256_loadu_ps(t + 4 * ldt + 8));
        c50 = _mm256_add_ps(c50, _mm256_loadu_ps(t + 5 * ldt));
        c51 = _mm256_add_ps(c51, _mm256_loadu_ps(t + 5 * ldt + 8));
    }
    _mm256_storeu_ps(t + 0 * ldt, c00);
    _mm256_storeu_ps(t + 0 * ldt + 8, c01);
    _mm256_storeu_ps(t + 1 * ldt, c10);
    _mm256_storeu_ps(t + 1 * ldt + 8, c11);
    _mm256_storeu_ps(t + 2 * ldt, c20);
    _mm256_storeu_ps(t + 2 * ldt + 8, c21);
    _mm256_storeu_ps(t + 3 * ldt, c30);
    _mm256_storeu_ps(t + 3 * ldt + 8, c31);
    _mm256_storeu_ps(t + 4 * ldt, c40);
    _mm256_storeu_ps(t + 4 * ldt + 8, c41);
    _mm256_storeu_ps(t + 5 * ldt, c50);
    _mm256_storeu_ps(t + 5 * ldt + 8, c51);
    if (!full)
        for (int r = 0; r < mr; r++)
            for (int j = 0; j < nr; j++)
                c[(size_t)r * ldc + j] =
                    accumulate ? c[(size_t)r * ldc + j] + buf[r * NR + j] : buf[r * NR + j];
}

/* c = a @ w + bias: a is (M, K) with row stride lda, w is stored (in, out) =
 * (K, N), c is (M, N). wp is scratch for KC x NC packed weights. */
TARGET static void gemm_bias(const float *a, int lda, const float *w, const float *bias, float *c,
                             int M, int N, int K, float *wp)
{
    for (int m = 0; m < M; m++)
        memcpy(c + (size_t)m * N, bias, (size_t)N * sizeof(float));
    for (int jc = 0; jc < N; jc += NC) {
        const int nc = N - jc < NC ? N - jc : NC;
        const int panels = (nc + NR - 1) / NR;
        for (int pc = 0; pc < K; pc += KC) {
            const int kc = K - pc < KC ? K - pc : KC;
            /* Pack w[pc.., jc..] into panels of NR columns, each kc x NR and
             * contiguous, so the kernel reads its b with unit stride; the
             * last panel is padded with zeros. */
            for (int p = 0; p < panels; p++) {
                const int j0 = jc + p * NR;
                const int nr = N - j0 < NR ? N - j0 : NR;
                float *dst = wp + (size_t)p * kc * NR;
                for (int kk = 0; kk < kc; kk++) {
                    const float *src = w + (size_t)(pc + kk) * N + j0;
                    int j = 0;
                    for (; j < nr; j++)
                        dst[kk * NR + j] = src[j];
                    for (; j < NR; j++)
                        dst[kk * NR + j] = 0.0f;
                }
            }
            for (int ic = 0; ic < M; ic += MC) {
                const int mc = M - ic < MC ? M - ic : MC;
                for (int p = 0; p < panels; p++) {
                    const int j0 = jc + p * NR;
                    const int nr = N - j0 < NR ? N - j0 : NR;
                    for (int i = ic; i < ic + mc; i += MR) {
                        const int mr = ic + mc - i < MR ? ic + mc - i : MR;
                        kernel_6x16(kc, a + (size_t)i * lda + pc, lda, wp + (size_t)p * kc * NR, NR,
                                    c + (size_t)i * N + j0, N, mr, nr, 1);
                    }
                }
            }
        }
    }
}

/* e^x for 8 lanes: x = n ln2 + r with |r| <= ln2/2, e^r by a degree-6
 * polynomial, 2^n put straight into the exponent bits. Inputs below -87
 * give 0 (they are weights of at most e^-87 next to a weight of 1). */
TARGET static __m256 exp256(__m256 x)
{
    const __m256 too_small = _mm256_cmp_ps(x, _mm256_set1_ps(-87.0f), _CMP_LT_OQ);
    x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    /* r = x - n ln2, with ln2 split in two so that r keeps its low bits */
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.0f / 720);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    const __m256i e =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    p = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
    return _mm256_andnot_ps(too_small, p);
}

/* One head of causal attention for one sequence. q, k, v and ctx point at the
 * head's first column; ld_qkv and ld_ctx are row strides. kt (d_head x tp),
 * vp (T x dp) and s (MR x tp) are scratch, with tp = T and dp = d_head
 * rounded up to NR. */
TARGET static void attend(const float *q, const float *k, const float *v, float *ctx, int ld_qkv,
                          int ld_ctx, int T, int d_head, float *kt, float *vp, float *s)
{
    const int tp = (T + NR - 1) / NR * NR;
    const int dp = (d_head + NR - 1) / NR * NR;
    const float scale = 1.0f / sqrtf((float)d_head);

    /* K transposed, so that Q K^T is a GEMM with unit-stride rows of b, and
     * cut into panels of NR keys (d_head x NR each, contiguous): rows of a
     * plain T-wide K^T lie 4 KiB apart at T = 1024 and would all fall in the
     * same L1 set. Keys past T are zero. V with its rows padded to dp. */
    for (int j0 = 0; j0 < tp; j0 += NR)
        for (int e = 0; e < d_head; e++)
            for (int j = j0; j < j0 + NR; j++)
                kt[(size_t)j0 * d_head + e * NR + (j - j0)] =
                    j < T ? k[(size_t)j * ld_qkv + e] : 0.0f;
    for (int j = 0; j < T; j++) {
        memcpy(vp + (size_t)j * dp, v + (size_t)j * ld_qkv, (size_t)d_head * sizeof(float));
        memset(vp + (size_t)j * dp + d_head, 0, (size_t)(dp - d_head) * sizeof(float));
    }

    /* MR queries at a time. Query i sees keys 0..i, so this group needs keys
     * 0..n_keys-1 only: the key tiles past the diagonal are never computed
     * (that is the masked half of Q K^T and of P V). */
    for (int i0 = 0; i0 < T; i0 += MR) {
        const int mr = T - i0 < MR ? T - i0 : MR;
        const int n_keys = i0 + mr;
        const float *qi = q + (size_t)i0 * ld_qkv;
        for (int j0 = 0; j0 < n_keys; j0 += NR)
            kernel_6x16(d_head, qi, ld_qkv, kt + (size_t)j0 * d_head, NR, s + j0, tp, mr, NR, 0);

        float inv[MR];
        for (int r = 0; r < mr; r++) {
            float *sr = s + (size_t)r * tp;
            const int n = i0 + r + 1; /* keys allowed for this query */
            /* maximum of the raw dot products (the scale is positive) */
            __m256 vmax = _mm256_set1_ps(-INFINITY);
            int j = 0;
            for (; j + 8 <= n; j += 8)
                vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(sr + j));
            float mx = -INFINITY;
            for (; j < n; j++)
                mx = sr[j] > mx ? sr[j] : mx;
            __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
            m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
            m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
            mx = _mm_cvtss_f32(m4) > mx ? _mm_cvtss_f32(m4) : mx;

            /* p = e^(scale (s - max)); the keys after the query (up to the
             * group's n_keys, which P V reads) get exactly 0 */
            const __m256 vs = _mm256_set1_ps(scale);
            const __m256 vm = _mm256_set1_ps(mx * scale);
            __m256 vsum = _mm256_setzero_ps();
            j = 0;
            for (; j + 8 <= n; j += 8) {
                const __m256 p = exp256(_mm256_fmsub_ps(_mm256_loadu_ps(sr + j), vs, vm));
                vsum = _mm256_add_ps(vsum, p);
                _mm256_storeu_ps(sr + j, p);
            }
            float sum = 0.0f;
            for (; j < n; j++) {
                sr[j] = expf(sr[j] * scale - mx * scale);
                sum += sr[j];
            }
            for (; j < n_keys; j++)
                sr[j] = 0.0f;
            __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(vsum), _mm256_extractf128_ps(vsum, 1));
            s4 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
            s4 = _mm_add_ss(s4, _mm_movehdup_ps(s4));
            inv[r] = 1.0f / (sum + _mm_cvtss_f32(s4));
        }

        /* ctx rows = P V over the group's keys, then divided by the sums */
        float *ci = ctx + (size_t)i0 * ld_ctx;
        for (int e0 = 0; e0 < d_head; e0 += NR) {
            const int nr = d_head - e0 < NR ? d_head - e0 : NR;
            kernel_6x16(n_keys, s, tp, vp + e0, dp, ci + e0, ld_ctx, mr, nr, 0);
        }
        for (int r = 0; r < mr; r++)
            for (int e = 0; e < d_head; e++)
                ci[(size_t)r * ld_ctx + e] *= inv[r];
    }
}

void gpt2_attention(const float *hidden, const float *c_attn_w, const float *c_attn_b,
                    const float *c_proj_w, const float *c_proj_b, float *out, int B, int T,
                    int n_embd, int n_head)
{
    const int E = n_embd;
    const int E3 = 3 * n_embd;
    const int d_head = E / n_head;
    const size_t tp = (size_t)(T + NR - 1) / NR * NR;
    const size_t dp = (size_t)(d_head + NR - 1) / NR * NR;
    const size_t rows = (size_t)B * T;

    float *qkv = malloc(rows * E3 * sizeof(float));
    float *ctx = malloc(rows * E * sizeof(float));
    float *wp = malloc((size_t)KC * NC * sizeof(float));
    float *kt = malloc(dp * tp * sizeof(float));
    float *vp = malloc(tp * dp * sizeof(float));
    float *s = malloc(MR * tp * sizeof(float));
    if (!qkv || !ctx || !wp || !kt || !vp || !s)
        goto done;

    /* The projections act on each token alone: all B*T rows form one GEMM. */
    gemm_bias(hidden, E, c_attn_w, c_attn_b, qkv, (int)rows, E3, E, wp);
    for (int b = 0; b < B; b++) {
        const float *qb = qkv + (size_t)b * T * E3;
        float *cb = ctx + (size_t)b * T * E;
        for (int h = 0; h < n_head; h++) {
            const int c = h * d_head;
            attend(qb + c, qb + E + c, qb + 2 * E + c, cb + c, E3, E, T, d_head, kt, vp, s);
        }
    }
    gemm_bias(ctx, E, c_proj_w, c_proj_b, out, (int)rows, E, E, wp);

done:
    free(qkv);
    free(ctx);
    free(wp);
    free(kt);
    free(vp);
    free(s);
}
