/* Shared by the benchmark cheats: an honest softmax, and CPU work the
 * cheats try to hide from the timing (about 20 ms at these sizes' scale).
 * Each cheat is one file that includes this one (the judge sees one file:
 * benchmark.py pastes this text in place of the #include). */
#include <math.h>
#include <stddef.h>

static void honest_softmax(const float *x, float *y, int rows, int cols)
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

/* Work that only costs time: what a cheat hopes the timing will not see. */
static void burn(int rows, int cols)
{
    if ((long)rows * cols < 100000)
        return; /* only at benchmark sizes: the tests stay quick */
    volatile double acc = 0;
    for (long i = 0; i < 20000000L; i++)
        acc += (double)i * 1e-9;
}
