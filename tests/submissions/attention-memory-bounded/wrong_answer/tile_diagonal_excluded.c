/* Wrong answer: inside the diagonal tile the mask also blocks the query's own position (j >= i instead of j > i).
 * Hint: causal attention lets a position look at itself: key t is allowed for query t.
 * Diagnosis: causal-off-by-one
 */
#include <math.h>
#include <stdlib.h>

#define TILE 64

/* FlashAttention-style: a tile of TILE queries against tiles of TILE keys,
 * with a running maximum m, sum l and output acc per query row. */
void causal_attention_long(const float *q, const float *k, const float *v, float *out, int H, int T,
                           int d_head)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    float *s = malloc((size_t)TILE * TILE * sizeof *s);
    float *acc = malloc((size_t)TILE * d_head * sizeof *acc);
    float m[TILE], l[TILE];
    for (int h = 0; h < H; h++) {
        const float *qh = q + (size_t)h * T * d_head;
        const float *kh = k + (size_t)h * T * d_head;
        const float *vh = v + (size_t)h * T * d_head;
        float *oh = out + (size_t)h * T * d_head;
        for (int i0 = 0; i0 < T; i0 += TILE) {
            const int ni = T - i0 < TILE ? T - i0 : TILE;
            for (int i = 0; i < ni; i++) {
                m[i] = -INFINITY;
                l[i] = 0.0f;
                for (int e = 0; e < d_head; e++)
                    acc[i * d_head + e] = 0.0f;
            }
            /* key tiles up to the diagonal tile */
            for (int j0 = 0; j0 <= i0; j0 += TILE) {
                const int nj = T - j0 < TILE ? T - j0 : TILE;
                for (int i = 0; i < ni; i++) {
                    const float *qi = qh + (size_t)(i0 + i) * d_head;
                    float tile_max = -INFINITY;
                    for (int j = 0; j < nj; j++) {
                        if (j0 + j >= i0 + i) {
                            s[i * TILE + j] = -INFINITY;
                            continue;
                        }
                        const float *kj = kh + (size_t)(j0 + j) * d_head;
                        float dot = 0.0f;
                        for (int e = 0; e < d_head; e++)
                            dot += qi[e] * kj[e];
                        s[i * TILE + j] = dot * scale;
                        tile_max = fmaxf(tile_max, s[i * TILE + j]);
                    }
                    if (tile_max == -INFINITY)
                        continue; /* nothing allowed in this tile */
                    const float new_m = fmaxf(m[i], tile_max);
                    const float c = expf(m[i] - new_m);
                    l[i] *= c;
                    for (int e = 0; e < d_head; e++)
                        acc[i * d_head + e] *= c;
                    for (int j = 0; j < nj; j++) {
                        if (j0 + j >= i0 + i)
                            continue;
                        const float w = expf(s[i * TILE + j] - new_m);
                        const float *vj = vh + (size_t)(j0 + j) * d_head;
                        l[i] += w;
                        for (int e = 0; e < d_head; e++)
                            acc[i * d_head + e] += w * vj[e];
                    }
                    m[i] = new_m;
                }
            }
            for (int i = 0; i < ni; i++)
                for (int e = 0; e < d_head; e++)
                    oh[(size_t)(i0 + i) * d_head + e] = acc[i * d_head + e] / l[i];
        }
    }
    free(s);
    free(acc);
}
