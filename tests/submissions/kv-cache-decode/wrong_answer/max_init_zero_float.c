/* Wrong answer: the running maximum starts at 0 instead of -inf; exact unless every score of a
 * row is below about -88, where the weights lose their precision and then underflow to 0/0.
 * Softmax computed in float, the rest in double.
 * Caught by: tests
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The signature, exactly as the problem states it. */
void kv_cache_decode(const float *q, const float *k_new, const float *v_new, float *k_cache,
                     float *v_cache, float *out, int B, int H, int max_T, int d_head, int pos);

/* Key j of a row is left out of the softmax when j >= n_open (a causal
 * future key, an unwritten cache slot) or blocked[j] != 0 (padding, a mask;
 * blocked may be NULL). */
static int key_blocked(const unsigned char *blocked, int n_open, int j)
{
    return j >= n_open || (blocked != NULL && blocked[j]);
}

/* One row of n scores becomes its softmax weights, in float. */
static void weights_row(double *p, const unsigned char *blocked, int n_open, int n)
{
    float m = 0.0f;
    for (int j = 0; j < n; j++)
        if (!key_blocked(blocked, n_open, j) && (float)p[j] > m)
            m = (float)p[j];
    float sum = 0.0f;
    for (int j = 0; j < n; j++) {
        const float w = key_blocked(blocked, n_open, j) ? 0.0f : expf((float)p[j] - m);
        p[j] = w;
        sum += w;
    }
    for (int j = 0; j < n; j++)
        p[j] /= sum;
}

void kv_cache_decode(const float *q, const float *k_new, const float *v_new, float *k_cache,
                     float *v_cache, float *out, int B, int H, int max_T, int d_head, int pos)
{
    const double scale = 1.0 / sqrt((double)d_head);
    double *p = malloc((size_t)max_T * sizeof *p);
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
        for (int j = 0; j < max_T; j++) {
            double dot = 0.0;
            for (int e = 0; e < d_head; e++)
                dot += (double)qv[e] * kc[(size_t)j * d_head + e];
            p[j] = dot * scale;
        }
        weights_row(p, NULL, pos + 1, max_T);
        for (int e = 0; e < d_head; e++) {
            double acc = 0.0;
            for (int j = 0; j <= pos; j++)
                acc += p[j] * vc[(size_t)j * d_head + e];
            out[(size_t)bh * d_head + e] = (float)acc;
        }
    }
    free(p);
}
