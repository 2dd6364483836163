/* attack: define read() and memset(), which the harness's copy of the inputs and fill of the outputs would call, and skip that work
 * threat: the student's object comes first in the static link and replaces the C library's functions for the harness and for libc itself (docs/performance.md)
 * expect: compile_error
 * message: defines `read`
 * problem: softmax-stable
 *
 * The harness makes raw system calls and uses its own loops, so it would
 * call neither; the judge also refuses any file that defines such a name.
 */
#include <math.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

ssize_t read(int fd, void *buf, size_t len)
{
    return syscall(SYS_read, fd, buf, len);
}

void *memset(void *p, int c, size_t len)
{
    volatile unsigned char *b = p;
    for (size_t i = 0; i < len && len < 65536; i++)
        b[i] = (unsigned char)c;
    return p;
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
