/*
 * live — a running SBX_RUN program seen from the judge, for a conversation
 * (sbx_spec.converse): its CPU clock and its memory, read and written from
 * outside the sandbox.
 *
 * The judge knows the sandbox's init by pid and pidfd; the program is the
 * init's only child, found in /proc/<init>/task/<init>/children. Every
 * handle on it is taken while it is certainly that child: a pidfd first,
 * then /proc/<pid>/mem (bound to the program's memory, not to its pid),
 * then the children list is read again. A pid is only trusted while the
 * pidfd says the program has not ended: once it has, the kernel may give
 * its number to any process of the host. The CPU clock is read by pid,
 * so every reading is checked against the pidfd afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/internal.h"

/* The init's only child, 0 when it has none (yet), -1 on error. */
static pid_t only_child(pid_t init)
{
    char path[64], buf[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)init, (int)init);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    char *end;
    long pid = strtol(buf, &end, 10);
    return end == buf || pid <= 0 ? 0 : (pid_t)pid;
}

static bool ended(const struct sbx_live *live)
{
    struct pollfd p = {live->pidfd, POLLIN, 0};
    return poll(&p, 1, 0) != 0; /* readable once it has exited; an error: assume so */
}

int sbx_live_open(pid_t init, struct sbx_live *live)
{
    live->pidfd = live->mem_fd = -1;
    live->pid = only_child(init);
    if (live->pid <= 0) {
        errno = live->pid == 0 ? ESRCH : errno;
        return -1;
    }
    live->pidfd = (int)syscall(SYS_pidfd_open, live->pid, 0);
    if (live->pidfd < 0)
        return -1;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)live->pid);
    live->mem_fd = open(path, O_RDWR | O_CLOEXEC);
    if (live->mem_fd < 0 || clock_getcpuclockid(live->pid, &live->clock) != 0 ||
        only_child(init) != live->pid || ended(live)) {
        sbx_live_close(live);
        errno = ESRCH;
        return -1;
    }
    return 0;
}

void sbx_live_close(struct sbx_live *live)
{
    if (live->mem_fd >= 0)
        close(live->mem_fd);
    if (live->pidfd >= 0)
        close(live->pidfd);
    live->mem_fd = live->pidfd = -1;
}

int sbx_live_cpu_ms(const struct sbx_live *live, double *ms)
{
    struct timespec ts;
    if (clock_gettime(live->clock, &ts) != 0 || ended(live)) {
        errno = ESRCH;
        return -1;
    }
    *ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
    return 0;
}

/* One direction of a copy through /proc/<pid>/mem, whole or -1. */
static int copy(const struct sbx_live *live, uint64_t addr, void *buf, size_t len, bool out)
{
    char *p = buf;
    while (len > 0) {
        if (addr > (uint64_t)INT64_MAX) {
            errno = EFAULT;
            return -1;
        }
        ssize_t n = out ? pwrite(live->mem_fd, p, len, (off_t)addr)
                        : pread(live->mem_fd, p, len, (off_t)addr);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* 0: the memory is gone, the program with it */
            if (n == 0)
                errno = ESRCH;
            return -1;
        }
        p += n;
        addr += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

int sbx_live_read(const struct sbx_live *live, uint64_t addr, void *buf, size_t len)
{
    return copy(live, addr, buf, len, false);
}

int sbx_live_write(const struct sbx_live *live, uint64_t addr, const void *buf, size_t len)
{
    return copy(live, addr, (void *)buf, len, true);
}

int sbx_live_fill(const struct sbx_live *live, uint64_t addr, unsigned char byte, size_t len)
{
    size_t size = len < (1u << 20) ? len : (1u << 20);
    unsigned char *chunk = malloc(size ? size : 1);
    int rc = 0;
    if (!chunk)
        return -1;
    memset(chunk, byte, size);
    while (rc == 0 && len > 0) {
        size_t n = len < size ? len : size;
        rc = copy(live, addr, chunk, n, true);
        addr += n;
        len -= n;
    }
    free(chunk);
    return rc;
}
