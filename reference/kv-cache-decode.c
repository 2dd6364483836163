/*
 * Reference implementation of problem "kv-cache-decode".
 *
 * One decoding step of multi-head causal self-attention with a KV cache,
 * updated in place as a real decoder does. For every batch element b and
 * head h:
 *     k_cache[pos] = k_new,  v_cache[pos] = v_new          (the append)
 *     s_j  = q . k_cache[j] / sqrt(d_head)      for j = 0 .. pos
 *     out  = sum_j softmax(s)_j v_cache[j]
 * Every other slot is left as it was: slots 0 .. pos-1 hold the past,
 * pos+1 .. max_T-1 stale data that is never attended to. The new token
 * attends to itself (slot pos) and to the past.
 *
 * Everything is accumulated in double; only the outputs are rounded to float.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The signature, exactly as the problem states it. */
void kv_cache_decode(const float *q, const float *k_new, const float *v_new, float *k_cache,
                     float *v_cache, float *out, int B, int H, int max_T, int d_head, int pos);

void kv_cache_decode(const float *q, const float *k_new, const float *v_new, float *k_cache,
                     float *v_cache, float *out, int B, int H, int max_T, int d_head, int pos)
{
    const double scale = 1.0 / sqrt((double)d_head);
    double *p = malloc((size_t)(pos + 1) * sizeof *p);
    if (p == NULL)
        abort();

    /* the append: slot pos of every (b, h) gets the new token, in place */
    for (int bh = 0; bh < B * H; bh++) {
        const size_t slot = ((size_t)bh * max_T + pos) * d_head;
        memcpy(k_cache + slot, k_new + (size_t)bh * d_head, d_head * sizeof *k_new);
        memcpy(v_cache + slot, v_new + (size_t)bh * d_head, d_head * sizeof *v_new);
    }

    /* the attention of the new token over slots 0 .. pos of its own head */
    for (int bh = 0; bh < B * H; bh++) {
        const float *qv = q + (size_t)bh * d_head;
        const float *kc = k_cache + (size_t)bh * max_T * d_head;
        const float *vc = v_cache + (size_t)bh * max_T * d_head;
        double m = -INFINITY;
        for (int j = 0; j <= pos; j++) {
            double dot = 0.0;
            for (int e = 0; e < d_head; e++)
                dot += (double)qv[e] * kc[(size_t)j * d_head + e];
            p[j] = dot * scale;
            if (p[j] > m)
                m = p[j];
        }
        double sum = 0.0;
        for (int j = 0; j <= pos; j++) {
            p[j] = exp(p[j] - m);
            sum += p[j];
        }
        for (int e = 0; e < d_head; e++) {
            double acc = 0.0;
            for (int j = 0; j <= pos; j++)
                acc += p[j] * vc[(size_t)j * d_head + e];
            out[(size_t)bh * d_head + e] = (float)(acc / sum);
        }
    }
    free(p);
}
