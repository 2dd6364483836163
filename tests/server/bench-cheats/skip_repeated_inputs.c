/* Bench cheat: remembers a fingerprint of its last inputs and skips the work
 * (and the cost) when the same inputs come again, as a benchmark that
 * reuses one input for every timed call would allow. Expected: gains
 * nothing (every timed call gets fresh random inputs in a fresh process). */
#include "common.h"
#include <stdlib.h>
#include <string.h>

static unsigned long last_sum;
static float *last_y;

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    size_t n = (size_t)rows * cols;
    unsigned long sum = 0;
    for (size_t i = 0; i < n; i += 97) {
        unsigned int bits;
        memcpy(&bits, &x[i], sizeof bits);
        sum = sum * 31 + bits;
    }
    if (last_y && sum == last_sum) {
        memcpy(y, last_y, n * sizeof *y);
        return;
    }
    honest_softmax(x, y, rows, cols);
    burn(rows, cols);
    last_sum = sum;
    free(last_y);
    if ((last_y = malloc(n * sizeof *y)) != NULL)
        memcpy(last_y, y, n * sizeof *y);
}
