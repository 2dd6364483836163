/* Wrong answer: an off-by-one in the row loop (rows - 1): the last row of the output is never written and still holds the judge's fill pattern.
 * Message sample-small: y: 5 of 15 elements are NaN, never written (first at y[2, 0], y[2, 1],
 *   y[2, 2]): still the judge's fill pattern (0xFFFFFFFF), so your code never assigned a value
 *   there (a loop that stops early or skips a part?), or copied it from malloc'd memory it
 *   never filled, which starts with the same bytes
 * Message sample-large-logits: y: 6 of 24 elements are NaN, never written (first at y[3, 0],
 *   y[3, 1], y[3, 2]): still the judge's fill pattern (0xFFFFFFFF), so your code never assigned
 *   a value there (a loop that stops early or skips a part?), or copied it from malloc'd memory
 *   it never filled, which starts with the same bytes
 */
#include <math.h>
#include <stdlib.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows - 1; r++) {
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
