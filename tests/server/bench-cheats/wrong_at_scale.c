/* Bench cheat: right on every (small) test, and at the large benchmark
 * sizes it skips the work and writes a plausible uniform row. Expected:
 * accepted by the tests, then wrong_answer from the benchmark (every timed
 * call's outputs are checked against the reference). */
#include "common.h"

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    if ((long)rows * cols < 100000) {
        honest_softmax(x, y, rows, cols);
        return;
    }
    for (long i = 0; i < (long)rows * cols; i++)
        y[i] = 1.0f / (float)cols;
}
