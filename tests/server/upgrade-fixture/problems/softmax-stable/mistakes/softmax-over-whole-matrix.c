/*
 * Known mistake "softmax-over-whole-matrix" of problem "softmax-stable": one maximum and one sum over the whole matrix instead of one per row.
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
    /* one maximum and one sum over the whole matrix */
    double m = -INFINITY;
    for (size_t i = 0; i < (size_t)rows * cols; i++)
        if (x[i] > m)
            m = x[i];
    double sum = 0.0;
    for (size_t i = 0; i < (size_t)rows * cols; i++)
        sum += exp((double)x[i] - m);
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        for (int c = 0; c < cols; c++)
            e[c] = exp((double)xr[c] - m);
        for (int c = 0; c < cols; c++)
            yr[c] = (float)(e[c] / sum);
    }
    free(e);
}
