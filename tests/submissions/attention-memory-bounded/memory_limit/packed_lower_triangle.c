/*
 * Memory limit: only the lower triangle of the score matrix, packed, but still O(T^2) (32 MiB at T = 4096); the unchecked malloc returns NULL.
 * Hidden only: an O(T^2) triangle fits the 16 MiB limit at every size a student can read; it runs
 *   out only at T in the thousands, where a sample's printed data would be megabytes, and the
 *   statement states the limit and the largest T instead.
 */
#include <math.h>
#include <stdlib.h>

/* Saves half: only the lower triangle of the score matrix, packed row after
 * row (row t has t + 1 entries, starting at t(t+1)/2). Still O(T^2): 32 MiB
 * at T = 4096. malloc's result is not checked. */
void causal_attention_long(const float *q, const float *k, const float *v, float *out, int H, int T,
                           int d_head)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    float *P = malloc((size_t)T * (T + 1) / 2 * sizeof *P);
    for (int h = 0; h < H; h++) {
        const float *qh = q + (size_t)h * T * d_head;
        const float *kh = k + (size_t)h * T * d_head;
        const float *vh = v + (size_t)h * T * d_head;
        float *oh = out + (size_t)h * T * d_head;
        for (int t = 0; t < T; t++) {
            float *row = P + (size_t)t * (t + 1) / 2;
            float m = -INFINITY, sum = 0.0f;
            for (int s = 0; s <= t; s++) {
                float dot = 0.0f;
                for (int e = 0; e < d_head; e++)
                    dot += qh[(size_t)t * d_head + e] * kh[(size_t)s * d_head + e];
                row[s] = dot * scale;
                m = fmaxf(m, row[s]);
            }
            for (int s = 0; s <= t; s++) {
                row[s] = expf(row[s] - m);
                sum += row[s];
            }
            for (int e = 0; e < d_head; e++) {
                float acc = 0.0f;
                for (int s = 0; s <= t; s++)
                    acc += row[s] * vh[(size_t)s * d_head + e];
                oh[(size_t)t * d_head + e] = acc / sum;
            }
        }
    }
    free(P);
}
