/* attack: define __write, glibc's internal name of write, hoping a check knows only the public names
 * threat: libc's own code calls its internal names; the first object's definition would replace them (docs/performance.md)
 * expect: compile_error
 * message: defines `__write`
 * problem: softmax-stable
 */
#include <math.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

ssize_t __write(int fd, const void *buf, size_t len);
ssize_t __write(int fd, const void *buf, size_t len)
{
    return syscall(SYS_write, fd, buf, len);
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
