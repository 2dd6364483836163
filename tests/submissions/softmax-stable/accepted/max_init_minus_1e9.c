/* Accepted: the running maximum starts at the finite -1e9 instead of -inf. Correct within the
 * promised input domain (no score can come near -1e9), so it must be accepted: the
 * counterexample search must not reject it.
 * Softmax computed in float, the rest in double.
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void softmax_rows(const float *x, float *y, int rows, int cols);

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
    float m = -1e9f;
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

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    double *e = malloc((size_t)cols * sizeof *e);
    if (e == NULL)
        abort();
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        for (int c = 0; c < cols; c++)
            e[c] = xr[c];
        weights_row(e, NULL, cols, cols);
        for (int c = 0; c < cols; c++)
            yr[c] = (float)e[c];
    }
    free(e);
}
