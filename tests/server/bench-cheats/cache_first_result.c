/* Bench cheat: computes once, then hands back the first call's result on
 * every later call without looking at the inputs. Expected: gains nothing
 * (every timed call is a fresh process with fresh inputs, so there is never
 * a cached result to return) and is measured with its full cost. */
#include "common.h"
#include <stdlib.h>
#include <string.h>

static float *cached;
static size_t cached_n;

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    size_t n = (size_t)rows * cols;
    if (cached && cached_n == n) {
        memcpy(y, cached, n * sizeof *y);
        return;
    }
    honest_softmax(x, y, rows, cols);
    burn(rows, cols);
    cached = malloc(n * sizeof *y);
    if (cached) {
        memcpy(cached, y, n * sizeof *y);
        cached_n = n;
    }
}
