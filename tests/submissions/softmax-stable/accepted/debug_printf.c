/* Accepted: correct float32 code that prints debugging text to stdout and stderr. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        float m = xr[0];
        for (int c = 1; c < cols; c++)
            if (xr[c] > m)
                m = xr[c];
        float sum = 0.0f;
        for (int c = 0; c < cols; c++) {
            yr[c] = expf(xr[c] - m);
            sum += yr[c];
        }
        for (int c = 0; c < cols; c++)
            yr[c] /= sum;
        printf("row %d: max %g sum %g\n", r, m, sum);
        fprintf(stderr, "y[%d][0] = %g\n", r, yr[0]);
    }
}
