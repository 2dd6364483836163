/* Clears far more than y holds: the fault is inside the C library's
 * memset, called on line 10. */
#include <math.h>
#include <string.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    /* the size of a float counted twice, and the whole 4 KiB page after y
     * counted as y */
    memset(y, 0, sizeof(float) * sizeof(float) * (size_t)rows * cols + 4096);
    for (int r = 0; r < rows; r++) {
        float m = x[r * cols];
        for (int c = 1; c < cols; c++)
            if (x[r * cols + c] > m)
                m = x[r * cols + c];
        float s = 0;
        for (int c = 0; c < cols; c++)
            s += expf(x[r * cols + c] - m);
        for (int c = 0; c < cols; c++)
            y[r * cols + c] = expf(x[r * cols + c] - m) / s;
    }
}
