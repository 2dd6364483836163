/* Reads its input through a pointer that is NULL: line 12. */
#include <math.h>
#include <stddef.h>

static const float *scratch; /* never set */

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    (void)x;
    for (int r = 0; r < rows; r++) {
        const float *row = scratch + (size_t)r * cols;
        float m = row[0];
        float s = 0;
        for (int c = 0; c < cols; c++)
            s += expf(row[c] - m);
        for (int c = 0; c < cols; c++)
            y[r * cols + c] = expf(row[c] - m) / s;
    }
}
