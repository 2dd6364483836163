/* attack: define read() and memset(), which the harness's copy of the inputs and fill of the outputs would call, and skip that work
 * threat: the student's object comes first in the static link and replaces the C library's functions for the harness and for libc itself (docs/performance.md)
 * expect: compile_error
 * message: defines `read`
 * problem: softmax-stable
 *
 * The harness makes raw system calls and uses its own loops, so it would
 * call neither; the judge also refuses any file that defines such a name.
 */
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
    /* never runs: the file is refused before anything does */
    for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++)
        y[i] = x[i];
}
