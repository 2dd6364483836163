/* Wrong answer: one softmax over the whole matrix (one maximum, one sum) instead of one per row.
 * Hint: each row is its own distribution: its maximum and its sum run over that row's columns only, and each row of y sums to 1.
 * Diagnosis: softmax-over-whole-matrix
 */
#include <math.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    const long n = (long)rows * cols;
    float m = x[0];
    for (long i = 1; i < n; i++)
        m = fmaxf(m, x[i]);
    float sum = 0.0f;
    for (long i = 0; i < n; i++) {
        y[i] = expf(x[i] - m);
        sum += y[i];
    }
    for (long i = 0; i < n; i++)
        y[i] /= sum;
}
