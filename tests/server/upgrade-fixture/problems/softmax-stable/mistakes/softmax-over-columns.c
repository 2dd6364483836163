/*
 * Known mistake "softmax-over-columns" of problem "softmax-stable": softmax taken down each column (over the row index) instead of along each row.
 * The reference with that one change; everything is accumulated in double.
 */
#include <math.h>
#include <stdlib.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    for (int c = 0; c < cols; c++) {
        double m = -INFINITY;
        for (int r = 0; r < rows; r++)
            if (x[(size_t)r * cols + c] > m)
                m = x[(size_t)r * cols + c];
        double sum = 0.0;
        for (int r = 0; r < rows; r++)
            sum += exp((double)x[(size_t)r * cols + c] - m);
        for (int r = 0; r < rows; r++)
            y[(size_t)r * cols + c] = (float)(exp((double)x[(size_t)r * cols + c] - m) / sum);
    }
}
