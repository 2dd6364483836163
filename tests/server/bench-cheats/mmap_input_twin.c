/* Bench cheat's honest twin: the arithmetic of mmap_input_cheat.c on the
 * inputs the harness hands over, and nothing else. Expected: accepted; the
 * figure the cheat is compared with. */
#include "common.h"

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    honest_softmax(x, y, rows, cols);
}
