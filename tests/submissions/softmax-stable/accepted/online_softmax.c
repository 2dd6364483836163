/* Accepted: one pass keeps a running maximum and a running sum, rescaling the sum when the maximum grows. */
#include <math.h>
#include <stdlib.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        float m = -INFINITY, l = 0.0f;
        for (int c = 0; c < cols; c++) {
            if (xr[c] > m) {
                l = l * expf(m - xr[c]) + 1.0f;
                m = xr[c];
            } else {
                l += expf(xr[c] - m);
            }
        }
        const float inv = 1.0f / l;
        for (int c = 0; c < cols; c++)
            yr[c] = expf(xr[c] - m) * inv;
    }
}
