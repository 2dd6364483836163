/* Bench cheat: takes the harness's own per-call costs off its figure. Its
 * read() turns each large read of the input descriptor into an lseek and
 * remembers where the data lies; its memset() skips large fills (the
 * poisoning of the outputs); the function then maps the input descriptor
 * and computes from the mapping. The arithmetic is mmap_input_twin.c's and
 * every output is right; the empty function it is measured against still
 * pays for the copy and the fill, so the difference shrinks. Expected:
 * compile_error naming `read` (a C library name the harness and libc rely
 * on); were it to run, mapping the input descriptor is a security_violation
 * (mmap). */
#include "common.h"
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { INPUT_FD = 3, LARGE = 1 << 16 };

static struct {
    void *buf;
    off_t at;
    size_t len;
} skipped[8];
static int n_skipped;

ssize_t read(int fd, void *buf, size_t len)
{
    if (fd == INPUT_FD && len >= LARGE && n_skipped < 8) {
        off_t at = lseek(fd, 0, SEEK_CUR);
        if (at >= 0 && lseek(fd, (off_t)len, SEEK_CUR) >= 0) {
            skipped[n_skipped].buf = buf;
            skipped[n_skipped].at = at;
            skipped[n_skipped].len = len;
            n_skipped++;
            return (ssize_t)len;
        }
    }
    return syscall(SYS_read, fd, buf, len);
}

void *memset(void *p, int c, size_t len)
{
    if (len >= LARGE)
        return p;
    volatile unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        b[i] = (unsigned char)c;
    return p;
}

void softmax_rows(const float *x, float *y, int rows, int cols)
{
    for (int i = 0; i < n_skipped; i++) {
        if (skipped[i].buf != (const void *)x)
            continue;
        off_t page = skipped[i].at - skipped[i].at % 4096;
        size_t lead = (size_t)(skipped[i].at - page);
        char *map = mmap(NULL, skipped[i].len + lead, PROT_READ, MAP_PRIVATE, INPUT_FD, page);
        if (map != MAP_FAILED) {
            honest_softmax((const float *)(map + lead), y, rows, cols);
            return;
        }
    }
    honest_softmax(x, y, rows, cols);
}
