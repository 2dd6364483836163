/* A max loop that stops one element short of the row: exact until the last
 * element exceeds the rest of its row by more than about 88, where expf
 * overflows. Every test of softmax-stable passes; the counterexample
 * search finds a row whose last element dominates. */
#include <math.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (long)r * cols;
        float m = xr[0];
        for (int c = 1; c < cols - 1; c++)
            if (xr[c] > m)
                m = xr[c];
        double s = 0;
        for (int c = 0; c < cols; c++)
            s += expf(xr[c] - m);
        for (int c = 0; c < cols; c++)
            y[(long)r * cols + c] = (float)(expf(xr[c] - m) / s);
    }
}
