/* attack: define memcpy as a weak symbol, hoping a check looks only at strong definitions
 * threat: a weak definition in the first object still replaces the C library's for every caller (docs/performance.md)
 * expect: compile_error
 * message: defines `memcpy`
 * problem: softmax-stable
 */
#include <stddef.h>

__attribute__((weak)) void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
    unsigned char *o = d;
    const unsigned char *i = s;
    while (n--)
        *o++ = *i++;
    return d;
}

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    /* never runs: the file is refused before anything does */
    for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++)
        y[i] = x[i];
}
