/* Steps through y with the wrong row stride (cols * cols): the second
 * row's first store, on line 16, lands past the end of the output. */
#include <math.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        float m = x[r * cols];
        for (int c = 1; c < cols; c++)
            if (x[r * cols + c] > m)
                m = x[r * cols + c];
        float s = 0;
        for (int c = 0; c < cols; c++)
            s += expf(x[r * cols + c] - m);
        for (int c = 0; c < cols; c++)
            y[r * cols * cols + c] = expf(x[r * cols + c] - m) / s;
    }
}
