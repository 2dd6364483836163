/* attack: map the input descriptor (fd 3) and compute from the mapping instead of the buffers the harness filled
 * threat: a function that reaches its inputs without the harness's copy, which the empty function it is measured against still pays (docs/performance.md)
 * expect: security_violation
 * message: (mmap)
 * problem: softmax-stable
 *
 * The run filter allows mmap of anonymous memory only (MAP_ANONYMOUS): a
 * mapping of any descriptor stops the program.
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    /* x is the input file's last tensor: it ends where the file ends */
    size_t len = (size_t)rows * (size_t)cols * sizeof *x;
    struct stat st;
    if (fstat(3, &st) == 0 && (size_t)st.st_size >= len) {
        off_t at = st.st_size - (off_t)len;
        off_t page = at - at % 4096;
        const char *map = mmap(NULL, len + (size_t)(at - page), PROT_READ, MAP_PRIVATE, 3, page);
        if (map != MAP_FAILED)
            x = (const float *)(const void *)(map + (at - page));
    }
    /* never reached past the mmap: a copy stands for the computation */
    for (size_t i = 0; i < len / sizeof *x; i++)
        y[i] = x[i];
}
