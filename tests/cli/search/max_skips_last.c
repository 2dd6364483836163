/* A row maximum unrolled by four whose remainder loop stops one element
 * short: when the row length is not a multiple of four, the last element
 * is left out of the maximum. That is exact until the last element exceeds
 * the rest of its row by more than about 88, where expf overflows. Every
 * test of softmax-stable passes, whatever the deployment secret (the rows
 * with a remainder hold values too close together); the counterexample
 * search finds a short row whose last element dominates. */
#include <math.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (long)r * cols;
        float m = xr[0];
        int c = 0;
        for (; c + 4 <= cols; c += 4)
            for (int k = 0; k < 4; k++)
                m = xr[c + k] > m ? xr[c + k] : m;
        for (; c < cols - 1; c++)
            m = xr[c] > m ? xr[c] : m;
        double s = 0;
        for (c = 0; c < cols; c++)
            s += expf(xr[c] - m);
        for (c = 0; c < cols; c++)
            y[(long)r * cols + c] = (float)(expf(xr[c] - m) / s);
    }
}
