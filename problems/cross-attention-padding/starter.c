/*
 * cross-attention-padding — cross-attention with a key padding mask.
 *
 * Fill in cross_attention_padding(). As written it compiles but writes
 * zeros, so every test fails. Read the statement for the exact conventions;
 * in short:
 *   - query, out: (B, Tq, d_model); memory: (B, Tk, d_model) gives K and V
 *   - w_q, w_k, w_v, w_o: (d_model, d_model) stored (out, in) like nn.Linear,
 *     so Q[t][j] = sum_i query[t][i] * w_q[j*d_model + i]; no biases
 *   - head h = feature columns h*d_head .. h*d_head + d_head - 1
 *   - key_padding_mask: (B, Tk) bytes; key_padding_mask[b*Tk + j] != 0 means
 *     key j of batch element b is padding (weight 0 for every query and head)
 *   - scores scaled by 1/sqrt(d_head), softmax over the real keys
 */
#include <math.h>
#include <stdlib.h>

void cross_attention_padding(const float *query, const float *memory, const float *w_q,
                             const float *w_k, const float *w_v, const float *w_o,
                             const unsigned char *key_padding_mask, float *out, int B, int Tq,
                             int Tk, int d_model, int num_heads)
{
    (void)query;
    (void)memory;
    (void)w_q;
    (void)w_k;
    (void)w_v;
    (void)w_o;
    (void)key_padding_mask;
    (void)Tk;
    (void)num_heads;

    /* TODO: allocate scratch with malloc: Q and the merged heads (Tq x d_model),
     *       K and V (Tk x d_model), one row of scores (Tk). Check for NULL. */

    /* TODO: for each batch element b (its mask row: key_padding_mask + b*Tk):
     *         1. Q = query_b @ w_q^T, K = memory_b @ w_k^T, V = memory_b @ w_v^T
     *         2. for each head h and query i: scores against the real keys,
     *            subtract their maximum, exponentiate, normalise, mix the
     *            value rows into the merged output
     *         3. out_b = merged @ w_o^T */

    /* Placeholder so that the file compiles: replace it. */
    for (long i = 0; i < (long)B * Tq * d_model; i++)
        out[i] = 0.0f;

    /* TODO: free the scratch buffers. */
}
