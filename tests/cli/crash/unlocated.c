/* Clears far more than y holds, as the function's last act: gcc makes the
 * memset a tail call (a jump, no return address into this file), so the
 * fault inside the C library cannot be traced back to line 12. */
#include <math.h>
#include <string.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    (void)x;
    /* the size of a float counted twice, and the whole 4 KiB page after y
     * counted as y */
    memset(y, 0, sizeof(float) * sizeof(float) * (size_t)rows * cols + 4096);
}
