/* Accepted: plain float32 loops; y doubles as the scratch row; the maximum starts at the first element. */
#include <math.h>
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
    }
}
