/* attack: define memcpy as a weak symbol, hoping a check looks only at strong definitions
 * threat: a weak definition in the first object still replaces the C library's for every caller (docs/performance.md)
 * expect: compile_error
 * message: defines `memcpy`
 * problem: softmax-stable
 */
#include <math.h>
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
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        float m = xr[0], sum = 0;
        for (int c = 1; c < cols; c++)
            m = xr[c] > m ? xr[c] : m;
        for (int c = 0; c < cols; c++)
            sum += yr[c] = expf(xr[c] - m);
        for (int c = 0; c < cols; c++)
            yr[c] /= sum;
    }
}
