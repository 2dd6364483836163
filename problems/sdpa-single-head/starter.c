/*
 * sdpa-single-head — scaled dot-product attention, one head, optional causal mask.
 *
 * Fill in sdpa(). As written it compiles but writes zeros, so every test
 * fails. Read the statement for the details; in short:
 *   - q: (B, Tq, d_k), k: (B, Tk, d_k), v: (B, Tk, d_v), out: (B, Tq, d_v)
 *   - scores q.k / sqrt(d_k), softmax over the keys, weighted sum of v rows
 *   - causal == 1: query i looks at keys 0..i only (Tq == Tk then)
 *   - subtract the maximum of the allowed scores before exponentiating
 */
#include <math.h>
#include <stdlib.h>

void sdpa(const float *q, const float *k, const float *v, float *out, int B, int Tq, int Tk,
          int d_k, int d_v, int causal)
{
    (void)q;
    (void)k;
    (void)v;
    (void)Tk;
    (void)d_k;
    (void)causal;

    /* TODO: allocate one row of Tk scores with malloc; check for NULL. */

    /* TODO: for each batch element b and query i:
     *         1. the allowed keys: 0..Tk-1, or 0..i when causal
     *         2. scores q_i . k_j / sqrt(d_k) and their maximum
     *         3. exponentiate (minus the maximum), add up, normalise
     *         4. out_i = sum_j p_j * v_j */

    /* Placeholder so that the file compiles: replace it. */
    for (long i = 0; i < (long)B * Tq * d_v; i++)
        out[i] = 0.0f;

    /* TODO: free the scratch row. */
}
