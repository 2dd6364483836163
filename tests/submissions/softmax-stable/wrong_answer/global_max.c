/* Wrong answer: one maximum over the whole matrix instead of one per row; a row far below it underflows to 0/0.
 * Hint: each row needs its own maximum: the shift must make that row's largest exponent 0.
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
    double m = -INFINITY;
    for (size_t i = 0; i < (size_t)rows * cols; i++)
        if (x[i] > m)
            m = x[i];
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
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
