/* An integer division by a count that is 0 here: SIGFPE on line 12. */
#include <math.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    volatile int masked = 0; /* the columns a mask would hide: none */
    for (int r = 0; r < rows; r++) {
        float m = x[r * cols];
        for (int c = 1; c < cols; c++)
            if (x[r * cols + c] > m)
                m = x[r * cols + c];
        int every = cols / masked;
        float s = 0;
        for (int c = 0; c < cols; c++)
            s += expf(x[r * cols + c] - m) * (float)(every > 0);
        for (int c = 0; c < cols; c++)
            y[r * cols + c] = expf(x[r * cols + c] - m) / s;
    }
}
