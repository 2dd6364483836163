/* Bench cheat: maps the input descriptor and computes from the mapping,
 * without replacing any C library function (the harness has already
 * copied the inputs, so the mapping could only save the function's own
 * first touches of them). Expected: security_violation (mmap): the run
 * filter allows mmap of anonymous memory only. */
#include "common.h"
#include <sys/mman.h>
#include <sys/stat.h>

enum { INPUT_FD = 3 };

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    /* x is the input file's last tensor: it ends where the file ends */
    struct stat st;
    size_t len = (size_t)rows * (size_t)cols * sizeof *x;
    if (fstat(INPUT_FD, &st) == 0 && (size_t)st.st_size >= len) {
        off_t at = st.st_size - (off_t)len;
        off_t page = at - at % 4096;
        size_t lead = (size_t)(at - page);
        char *map = mmap(NULL, len + lead, PROT_READ, MAP_PRIVATE, INPUT_FD, page);
        if (map != MAP_FAILED) {
            honest_softmax((const float *)(map + lead), y, rows, cols);
            return;
        }
    }
    honest_softmax(x, y, rows, cols);
}
