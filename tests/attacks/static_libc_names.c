/* attack: none: helpers named like C library functions (read, memset, _scale), all static, which stay the file's own
 * threat: the check that refuses a file defining a C library name must not refuse a file's local helpers (docs/performance.md)
 * expect: accepted
 * problem: softmax-stable
 *
 * A static function is local to the file: the link never lets it replace
 * the C library's, so it is allowed whatever its name.
 */
#include <math.h>
#include <stddef.h>

static float read(const float *row, int c)
{
    return row[c];
}

static void memset(float *row, float v, int n)
{
    for (int c = 0; c < n; c++)
        row[c] = v;
}

static float _scale(float v, float sum)
{
    return v / sum;
}

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        float m = read(xr, 0), sum = 0;
        memset(yr, 0.0f, cols);
        for (int c = 1; c < cols; c++)
            m = read(xr, c) > m ? read(xr, c) : m;
        for (int c = 0; c < cols; c++)
            sum += yr[c] = expf(read(xr, c) - m);
        for (int c = 0; c < cols; c++)
            yr[c] = _scale(yr[c], sum);
    }
}
