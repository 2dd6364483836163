/* attack: define __write, glibc's internal name of write, hoping a check knows only the public names
 * threat: libc's own code calls its internal names; the first object's definition would replace them (docs/performance.md)
 * expect: compile_error
 * message: defines `__write`
 * problem: softmax-stable
 */
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
    /* never runs: the file is refused before anything does */
    for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++)
        y[i] = x[i];
}
