/*
 * gqa-rope — grouped-query attention with rotary position embeddings.
 *
 * Fill in gqa_rope(). As written it compiles but writes zeros, so every test
 * fails. Read the statement for the exact conventions; in short
 * (d = d_model / n_heads, kv_dim = n_kv_heads * d):
 *   - x, out: (B, T, d_model); w_q, w_o: (d_model, d_model);
 *     w_k, w_v: (kv_dim, d_model); all stored (out, in) like nn.Linear
 *   - RoPE on q and k heads: pairs (e, e + d/2), angle t * 10000^(-2e/d)
 *   - query head h uses key/value head h / (n_heads / n_kv_heads)
 *   - causal: position t attends to 0..t; scores scaled by 1/sqrt(d)
 */
#include <math.h>
#include <stdlib.h>

void gqa_rope(const float *x, const float *w_q, const float *w_k, const float *w_v,
              const float *w_o, float *out, int B, int T, int d_model, int n_heads, int n_kv_heads)
{
    (void)x;
    (void)w_q;
    (void)w_k;
    (void)w_v;
    (void)w_o;
    (void)n_heads;
    (void)n_kv_heads;

    /* TODO: allocate scratch with malloc: Q and the merged heads (T x d_model),
     *       K and V (T x kv_dim), one row of scores (T). Check for NULL. */

    /* TODO: for each sequence b:
     *         1. Q = x_b @ w_q^T, K = x_b @ w_k^T, V = x_b @ w_v^T
     *         2. rotate every head of Q and K by its position (RoPE)
     *         3. for each query head h (key/value head g = h / group) and
     *            position t: causal softmax over s = 0..t, mix the V rows
     *         4. out_b = merged @ w_o^T */

    /* Placeholder so that the file compiles: replace it. */
    for (long i = 0; i < (long)B * T * d_model; i++)
        out[i] = 0.0f;

    /* TODO: free the scratch buffers. */
}
