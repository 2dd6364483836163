/* Wrong answer: the causal mask is turned around: query i attends to keys i..Tk-1 (itself and the future) instead of 0..i.
 * Hint: causal means a query may look back, never ahead: with causal = 1, query i sees keys 0..i and key j > i gets weight 0.
 * Diagnosis: mask-inverted
 */
#include <math.h>

void sdpa(const float *q, const float *k, const float *v, float *out, int B, int Tq, int Tk,
          int d_k, int d_v, int causal)
{
    const float scale = 1.0f / sqrtf((float)d_k);
    for (int b = 0; b < B; b++) {
        for (int i = 0; i < Tq; i++) {
            const float *qi = q + ((long)b * Tq + i) * d_k;
            float *oi = out + ((long)b * Tq + i) * d_v;
            const int first = causal ? i : 0;
            float m = -INFINITY;
            for (int j = first; j < Tk; j++) {
                const float *kj = k + ((long)b * Tk + j) * d_k;
                float s = 0.0f;
                for (int e = 0; e < d_k; e++)
                    s += qi[e] * kj[e];
                m = fmaxf(m, s * scale);
            }
            float sum = 0.0f;
            for (int e = 0; e < d_v; e++)
                oi[e] = 0.0f;
            for (int j = first; j < Tk; j++) {
                const float *kj = k + ((long)b * Tk + j) * d_k;
                const float *vj = v + ((long)b * Tk + j) * d_v;
                float s = 0.0f;
                for (int e = 0; e < d_k; e++)
                    s += qi[e] * kj[e];
                const float w = expf(s * scale - m);
                sum += w;
                for (int e = 0; e < d_v; e++)
                    oi[e] += w * vj[e];
            }
            for (int e = 0; e < d_v; e++)
                oi[e] /= sum;
        }
    }
}
