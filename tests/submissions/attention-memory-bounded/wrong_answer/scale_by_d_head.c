/* Wrong answer: scores scaled by 1/d_head instead of 1/sqrt(d_head).
 * Hint: the scale is one over the square root of the head width.
 * Diagnosis: scale-by-d-head
 */
#include <math.h>
#include <stdlib.h>

void causal_attention_long(const float *q, const float *k, const float *v, float *out, int H, int T,
                           int d_head)
{
    const float scale = 1.0f / (float)d_head;
    float *acc = malloc((size_t)d_head * sizeof *acc);
    for (int h = 0; h < H; h++) {
        const float *qh = q + (size_t)h * T * d_head;
        const float *kh = k + (size_t)h * T * d_head;
        const float *vh = v + (size_t)h * T * d_head;
        float *oh = out + (size_t)h * T * d_head;
        for (int t = 0; t < T; t++) {
            const float *qt = qh + (size_t)t * d_head;
            float m = -INFINITY, l = 0.0f;
            for (int e = 0; e < d_head; e++)
                acc[e] = 0.0f;
            for (int s = 0; s <= t; s++) {
                const float *ks = kh + (size_t)s * d_head;
                const float *vs = vh + (size_t)s * d_head;
                float score = 0.0f;
                for (int e = 0; e < d_head; e++)
                    score += qt[e] * ks[e];
                score *= scale;
                if (score > m) {
                    const float c = expf(m - score);
                    l *= c;
                    for (int e = 0; e < d_head; e++)
                        acc[e] *= c;
                    m = score;
                }
                const float w = expf(score - m);
                l += w;
                for (int e = 0; e < d_head; e++)
                    acc[e] += w * vs[e];
            }
            for (int e = 0; e < d_head; e++)
                oh[(size_t)t * d_head + e] = acc[e] / l;
        }
    }
    free(acc);
}
