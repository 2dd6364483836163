/*
 * Known mistake "sum-skips-last-column" of problem "softmax-stable": off by one: the normalising sum stops before the last column.
 * The reference with that one change; everything is accumulated in double.
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
            if (c < cols - 1)
                sum += e[c];
        }
        for (int c = 0; c < cols; c++)
            yr[c] = (float)(e[c] / sum);
    }
    free(e);
}
