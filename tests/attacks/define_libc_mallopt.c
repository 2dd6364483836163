/* attack: define mallopt(), which the harness calls to keep a benchmark's allocations in a heap made ready before the clock starts, and keep its own allocations out of it
 * threat: the student's object comes first in the static link and would replace the harness's call; the judge refuses the name instead (docs/performance.md, "The heap is ready before the clock starts")
 * expect: compile_error
 * message: defines `mallopt`
 * problem: softmax-stable
 */
#include <math.h>
#include <stddef.h>

int mallopt(int param, int value)
{
    (void)param;
    (void)value;
    return 1;
}

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols, m = xr[0], s = 0;
        for (int c = 1; c < cols; c++)
            if (xr[c] > m)
                m = xr[c];
        for (int c = 0; c < cols; c++)
            s += yr[c] = expf(xr[c] - m);
        for (int c = 0; c < cols; c++)
            yr[c] /= s;
    }
}
