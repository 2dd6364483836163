/* Accepted: FlashAttention-style tiles with AVX2/FMA: a 6x16 register-tiled kernel for Q K^T and P V, online softmax.
 *
 * Per head, K is packed transposed and V padded (O(T * d_head) memory, 2 MiB
 * at T = 4096, d_head = 64); the T x T score matrix is never stored: a block
 * of BR queries walks the keys in blocks of BC, keeping per query a running
 * maximum m, sum l and unnormalised output acc (rescaled by e^(m_old - m_new)
 * whenever the maximum grows). Key blocks entirely after a query block are
 * never visited, so only the unmasked half of the work is done.
 */
#include <immintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MR 6   /* queries per register tile */
#define NR 16  /* keys (Q K^T) or features (P V) per register tile: two ymm */
#define BR 48  /* queries per block: its 8 register tiles share each key block */
#define BC 128 /* keys per block: K and V of a block (64 KiB at d_head = 64) stay in L2 */

#define TARGET __attribute__((target("avx2,fma")))

/* c[MR x NR] (+)= a[MR x K] * b[K x NR], all rows of every operand valid
 * memory (the buffers are padded). Row r of a starts at a + r*lda, row kk of
 * b at b + kk*ldb. 12 accumulators, 2 loads of b and 6 broadcasts of a per
 * step: 15 of the 16 ymm registers. Written out by hand: gcc -O2 does not
 * unroll a loop over the rows, and an array of accumulators would live in
 * memory. */
TARGET static void kernel_6x16(int K, const float *a, int lda, const float *b, int ldb, float *c,
                               int ldc, int accumulate)
{
    const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda;
    const float *a3 = a + 3 * lda, *a4 = a + 4 * lda, *a5 = a + 5 * lda;
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
    if (accumulate) {
        c00 = _mm256_add_ps(c00, _mm256_loadu_ps(c + 0 * ldc));
        c01 = _mm256_add_ps(c01, _mm256_loadu_ps(c + 0 * ldc + 8));
        c10 = _mm256_add_ps(c10, _mm256_loadu_ps(c + 1 * ldc));
        c11 = _mm256_add_ps(c11, _mm256_loadu_ps(c + 1 * ldc + 8));
        c20 = _mm256_add_ps(c20, _mm256_loadu_ps(c + 2 * ldc));
        c21 = _mm256_add_ps(c21, _mm256_loadu_ps(c + 2 * ldc + 8));
        c30 = _mm256_add_ps(c30, _mm256_loadu_ps(c + 3 * ldc));
        c31 = _mm256_add_ps(c31, _mm256_loadu_ps(c + 3 * ldc + 8));
        c40 = _mm256_add_ps(c40, _mm256_loadu_ps(c + 4 * ldc));
        c41 = _mm256_add_ps(c41, _mm256_loadu_ps(c + 4 * ldc + 8));
        c50 = _mm256_add_ps(c50, _mm256_loadu_ps(c + 5 * ldc));
        c51 = _mm256_add_ps(c51, _mm256_loadu_ps(c + 5 * ldc + 8));
    }
    _mm256_storeu_ps(c + 0 * ldc, c00);
    _mm256_storeu_ps(c + 0 * ldc + 8, c01);
    _mm256_storeu_ps(c + 1 * ldc, c10);
    _mm256_storeu_ps(c + 1 * ldc + 8, c11);
    _mm256_storeu_ps(c + 2 * ldc, c20);
    _mm256_storeu_ps(c + 2 * ldc + 8, c21);
    _mm256_storeu_ps(c + 3 * ldc, c30);
    _mm256_storeu_ps(c + 3 * ldc + 8, c31);
    _mm256_storeu_ps(c + 4 * ldc, c40);
    _mm256_storeu_ps(c + 4 * ldc + 8, c41);
    _mm256_storeu_ps(c + 5 * ldc, c50);
    _mm256_storeu_ps(c + 5 * ldc + 8, c51);
}

/* e^x for 8 lanes: x = n ln2 + r with |r| <= ln2/2, e^r by a degree-6
 * polynomial, 2^n put straight into the exponent bits. Inputs below -87
 * (masked keys are -inf) give exactly 0. */
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

TARGET static float hmax(__m256 v)
{
    __m128 x = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_max_ps(x, _mm_movehl_ps(x, x));
    x = _mm_max_ss(x, _mm_movehdup_ps(x));
    return _mm_cvtss_f32(x);
}

TARGET static float hsum(__m256 v)
{
    __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    x = _mm_add_ss(x, _mm_movehdup_ps(x));
    return _mm_cvtss_f32(x);
}

TARGET void causal_attention_long(const float *q, const float *k, const float *v, float *out, int H,
                                  int T, int d_head)
{
    const int tp = (T + NR - 1) / NR * NR;      /* keys, padded to whole panels */
    const int dp = (d_head + NR - 1) / NR * NR; /* features, padded likewise */
    const float scale = 1.0f / sqrtf((float)d_head);
    float *kt = malloc((size_t)tp * d_head * sizeof(float));
    float *vp = malloc((size_t)T * dp * sizeof(float));
    float *qp = malloc((size_t)BR * d_head * sizeof(float));
    float *acc = malloc((size_t)BR * dp * sizeof(float));
    float *s = malloc((size_t)MR * BC * sizeof(float));
    float m[BR], l[BR];
    if (!kt || !vp || !qp || !acc || !s)
        goto done;

    for (int h = 0; h < H; h++) {
        const float *qh = q + (size_t)h * T * d_head;
        const float *kh = k + (size_t)h * T * d_head;
        const float *vh = v + (size_t)h * T * d_head;
        float *oh = out + (size_t)h * T * d_head;

        /* K^T in panels of NR keys (d_head x NR, contiguous), so that a row of
         * b is one unit-stride load and the panel sits in a few cache lines;
         * keys past T are zero. V rows padded to dp features with zeros. */
        for (int j0 = 0; j0 < tp; j0 += NR)
            for (int e = 0; e < d_head; e++)
                for (int j = j0; j < j0 + NR; j++)
                    kt[(size_t)j0 * d_head + e * NR + (j - j0)] =
                        j < T ? kh[(size_t)j * d_head + e] : 0.0f;
        for (int j = 0; j < T; j++) {
            memcpy(vp + (size_t)j * dp, vh + (size_t)j * d_head, (size_t)d_head * sizeof(float));
            memset(vp + (size_t)j * dp + d_head, 0, (size_t)(dp - d_head) * sizeof(float));
        }

        for (int qb = 0; qb < T; qb += BR) {
            const int br = T - qb < BR ? T - qb : BR;
            /* the block's queries, with zero rows past T so that every
             * register tile has MR valid rows (their results are dropped) */
            memcpy(qp, qh + (size_t)qb * d_head, (size_t)br * d_head * sizeof(float));
            memset(qp + (size_t)br * d_head, 0, (size_t)(BR - br) * d_head * sizeof(float));
            memset(acc, 0, (size_t)BR * dp * sizeof(float));
            for (int i = 0; i < BR; i++) {
                m[i] = -INFINITY;
                l[i] = 0.0f;
            }

            /* keys after the block's last query are masked for all of it */
            for (int j0 = 0; j0 < qb + br; j0 += BC) {
                for (int g = 0; g < br; g += MR) {
                    const int i0 = qb + g;
                    /* this tile's queries see keys up to i0 + MR - 1 at most */
                    const int n_keys = i0 + MR < T ? i0 + MR : T;
                    if (j0 >= n_keys)
                        continue;
                    const int nc = n_keys - j0 < BC ? n_keys - j0 : BC;
                    const int nc8 = (nc + 7) / 8 * 8;
                    for (int jj = 0; jj < nc; jj += NR)
                        kernel_6x16(d_head, qp + (size_t)g * d_head, d_head,
                                    kt + (size_t)(j0 + jj) * d_head, NR, s + jj, BC, 0);

                    for (int r = 0; r < MR; r++) {
                        float *sr = s + (size_t)r * BC;
                        /* query i0 + r sees keys j0 .. i0 + r of this block:
                         * the rest (and the padding up to nc8) is -inf. The
                         * first block always holds key 0, so m is finite
                         * after it and a fully masked row later only gets
                         * weights 0 and a factor e^0 = 1. */
                        int lim = i0 + r + 1 - j0;
                        lim = lim < 0 ? 0 : lim > nc ? nc : lim;
                        for (int j = lim; j < nc8; j++)
                            sr[j] = -INFINITY;
                        __m256 vmax = _mm256_set1_ps(-INFINITY);
                        for (int j = 0; j < nc8; j += 8)
                            vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(sr + j));
                        /* m is kept scaled (the scale is positive, so the
                         * maximum is the same): the weights and alpha use
                         * the same rounded m, so rescaling adds no error */
                        const float tile_max = hmax(vmax) * scale;
                        const float new_m = tile_max > m[g + r] ? tile_max : m[g + r];
                        const float alpha = expf(m[g + r] - new_m);
                        const __m256 vs = _mm256_set1_ps(scale);
                        const __m256 vm = _mm256_set1_ps(new_m);
                        __m256 vsum = _mm256_setzero_ps();
                        for (int j = 0; j < nc8; j += 8) {
                            const __m256 p =
                                exp256(_mm256_fmsub_ps(_mm256_loadu_ps(sr + j), vs, vm));
                            vsum = _mm256_add_ps(vsum, p);
                            _mm256_storeu_ps(sr + j, p);
                        }
                        l[g + r] = l[g + r] * alpha + hsum(vsum);
                        m[g + r] = new_m;
                        if (alpha != 1.0f) {
                            float *ar = acc + (size_t)(g + r) * dp;
                            const __m256 va = _mm256_set1_ps(alpha);
                            for (int e = 0; e < dp; e += 8)
                                _mm256_storeu_ps(ar + e,
                                                 _mm256_mul_ps(va, _mm256_loadu_ps(ar + e)));
                        }
                    }

                    /* acc += P V over this block's keys */
                    for (int e0 = 0; e0 < dp; e0 += NR)
                        kernel_6x16(nc, s, BC, vp + (size_t)j0 * dp + e0, dp,
                                    acc + (size_t)g * dp + e0, dp, 1);
                }
            }

            for (int i = 0; i < br; i++) {
                const float inv = 1.0f / l[i];
                for (int e = 0; e < d_head; e++)
                    oh[(size_t)(qb + i) * d_head + e] = acc[(size_t)i * dp + e] * inv;
            }
        }
    }

done:
    free(kt);
    free(vp);
    free(qp);
    free(acc);
    free(s);
}
