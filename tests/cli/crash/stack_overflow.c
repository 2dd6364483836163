/* The row maximum by a recursion that never stops: the stack overflows
 * in row_max, whose recursive call is line 10. */
#include <math.h>

static float row_max(const float *x, int n, volatile int *depth)
{
    ++*depth;
    if (n == 1 && *depth < 0)
        return x[0];
    float rest = row_max(x + 1, n - 1, depth);
    return x[0] > rest ? x[0] : rest;
}

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    volatile int depth = 0;
    for (int r = 0; r < rows; r++) {
        float m = row_max(x + r * cols, cols, &depth);
        float s = 0;
        for (int c = 0; c < cols; c++)
            s += expf(x[r * cols + c] - m);
        for (int c = 0; c < cols; c++)
            y[r * cols + c] = expf(x[r * cols + c] - m) / s;
    }
}
