/* Bench cheat: counts its calls and, guessing that the first is a warm-up
 * that is checked and the rest are timed and not, does the expensive work
 * only on the first call. Expected: gains nothing (each call is the first of
 * a fresh process; warm-up and timed calls are the same call). */
#include "common.h"

static int calls;

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    honest_softmax(x, y, rows, cols);
    if (calls++ == 0)
        burn(rows, cols);
}
