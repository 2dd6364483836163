/*
 * Memory limit: the whole (T, T) score matrix of a head (64 MiB at T = 4096) is allocated; malloc returns NULL and the unchecked write crashes.
 * Hidden only: an O(T^2) score matrix fits the 16 MiB limit at every size a student can read (T =
 *   70 takes 19 KiB); it runs out only at T in the thousands, where a sample's printed data would
 *   be megabytes, and the statement states the limit and the largest T instead.
 */
#include <math.h>
#include <stdlib.h>

/* The textbook way: the whole (T, T) score matrix of a head, softmaxed in
 * place, then multiplied by V. malloc's result is not checked. */
void causal_attention_long(const float *q, const float *k, const float *v, float *out, int H, int T,
                           int d_head)
{
    const float scale = 1.0f / sqrtf((float)d_head);
    float *S = malloc((size_t)T * T * sizeof *S);
    for (int h = 0; h < H; h++) {
        const float *qh = q + (size_t)h * T * d_head;
        const float *kh = k + (size_t)h * T * d_head;
        const float *vh = v + (size_t)h * T * d_head;
        float *oh = out + (size_t)h * T * d_head;
        for (int t = 0; t < T; t++) {
            float *row = S + (size_t)t * T;
            float m = -INFINITY, sum = 0.0f;
            for (int s = 0; s < T; s++) {
                float dot = 0.0f;
                for (int e = 0; e < d_head; e++)
                    dot += qh[(size_t)t * d_head + e] * kh[(size_t)s * d_head + e];
                row[s] = s > t ? -INFINITY : dot * scale;
                m = fmaxf(m, row[s]);
            }
            for (int s = 0; s < T; s++) {
                row[s] = expf(row[s] - m);
                sum += row[s];
            }
            for (int s = 0; s < T; s++)
                row[s] /= sum;
        }
        for (int t = 0; t < T; t++)
            for (int e = 0; e < d_head; e++) {
                float acc = 0.0f;
                for (int s = 0; s < T; s++)
                    acc += S[(size_t)t * T + s] * vh[(size_t)s * d_head + e];
                oh[(size_t)t * d_head + e] = acc;
            }
    }
    free(S);
}
