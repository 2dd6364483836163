/* Accepted: one query at a time with one row of T scores in float, two-pass softmax. */
#include <math.h>
#include <stdlib.h>

void causal_attention_long(const float *q, const float *k, const float *v, float *out, int H, int T,
                           int d_head)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    float *p = malloc((size_t)T * sizeof *p);
    for (int h = 0; h < H; h++) {
        const float *qh = q + (size_t)h * T * d_head;
        const float *kh = k + (size_t)h * T * d_head;
        const float *vh = v + (size_t)h * T * d_head;
        float *oh = out + (size_t)h * T * d_head;
        for (int t = 0; t < T; t++) {
            float m = -INFINITY;
            for (int s = 0; s <= t; s++) {
                float dot = 0.0f;
                for (int e = 0; e < d_head; e++)
                    dot += qh[(size_t)t * d_head + e] * kh[(size_t)s * d_head + e];
                p[s] = dot * scale;
                if (p[s] > m)
                    m = p[s];
            }
            float sum = 0.0f;
            for (int s = 0; s <= t; s++) {
                p[s] = expf(p[s] - m);
                sum += p[s];
            }
            for (int e = 0; e < d_head; e++) {
                float acc = 0.0f;
                for (int s = 0; s <= t; s++)
                    acc += p[s] * vh[(size_t)s * d_head + e];
                oh[(size_t)t * d_head + e] = acc / sum;
            }
        }
    }
    free(p);
}
