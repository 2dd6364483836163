/* Wrong answer: softmax without subtracting the row maximum; expf overflows to inf (and underflows to 0) on large scores.
 * Hint: exp(x) overflows float above about 88.7. Shift every score by the row maximum first: the result is the same and the largest exponent becomes 0.
 */
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
            yr[c] = expf(xr[c]);
            sum += yr[c];
        }
        for (int c = 0; c < cols; c++)
            yr[c] /= sum;
    }
}
