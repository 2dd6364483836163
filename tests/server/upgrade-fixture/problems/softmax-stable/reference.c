/*
 * Reference implementation of problem "softmax-stable".
 *
 * Row-wise softmax of a (rows, cols) matrix:
 *     y[r][c] = exp(x[r][c] - m_r) / sum_c' exp(x[r][c'] - m_r),   m_r = max_c x[r][c]
 * Subtracting the row maximum changes nothing mathematically and keeps every
 * exponent <= 0, so nothing overflows; the largest term is exactly 1, so the
 * sum is >= 1 and nothing divides by zero.
 *
 * Everything is accumulated in double; only the outputs are rounded to float.
 */
#include <math.h>
#include <stdlib.h>

/* The signature, exactly as the problem states it. */
void softmax_rows(const float *x, float *y, int rows, int cols);

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    double *e = malloc((size_t)cols * sizeof *e);
    if (e == NULL)
        abort();
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        double m = -INFINITY;
        for (int c = 0; c < cols; c++)
            if (xr[c] > m)
                m = xr[c];
        double sum = 0.0;
        for (int c = 0; c < cols; c++) {
            e[c] = exp((double)xr[c] - m);
            sum += e[c];
        }
        for (int c = 0; c < cols; c++)
            yr[c] = (float)(e[c] / sum);
    }
    free(e);
}
