/* Wrong answer: shifts every score by the row minimum instead of the maximum: the largest exponent is then the row's range, expf overflows to inf on large logits and inf / inf is NaN.
 * Message sample-large-logits: y: 4 of 24 elements are NaN, computed (first at y[0, 5], y[1,
 *   5], y[3, 3]): your code computed NaN there: exp overflow? 0/0? a division by a zero sum?
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
            if (xr[c] < m)
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
