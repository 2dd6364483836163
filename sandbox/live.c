/*
 * live — a running SBX_RUN program seen from the judge, for a conversation
 * (sbx_spec.converse): its CPU clock and its memory, read and written from
 * outside the sandbox.
 *
 * The judge knows the sandbox's init by pid and pidfd; the program is the
 * init's only child, found in /proc/<init>/task/<init>/children. Its
 * pidfd is taken while it is certainly that child (the list is read again
 * after). Its memory and its CPU clock are reached by pid, and a pid is
 * only trusted while the pidfd says the program has not ended: once it
 * has, the kernel may give its number to another process of the host.
 * So every reading is checked against the pidfd after it is made, and
 * every write before. (/proc/<pid>/mem would be bound to the program's
 * memory, but opening it takes the program's uid or CAP_DAC_OVERRIDE,
 * which a server that gave up root does not have.)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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
    live->pidfd = -1;
    live->pid = only_child(init);
    if (live->pid <= 0) {
        errno = live->pid == 0 ? ESRCH : errno;
        return -1;
    }
    live->pidfd = (int)syscall(SYS_pidfd_open, live->pid, 0);
    if (live->pidfd < 0)
        return -1;
    int rc = clock_getcpuclockid(live->pid, &live->clock);
    if (rc > 0) {
        errno = rc;
        rc = -1;
    }
    if (rc == 0 && (only_child(init) != live->pid || ended(live))) {
        errno = ESRCH;
        rc = -1;
    }
    if (rc < 0) {
        int saved = errno;
        sbx_live_close(live);
        errno = saved;
    }
    return rc;
}

void sbx_live_close(struct sbx_live *live)
{
    if (live->pidfd >= 0)
        close(live->pidfd);
    live->pidfd = -1;
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

/* One direction of a copy, whole or -1. By pid (process_vm_readv and
 * _writev need no more than the right to trace the program, which the
 * judge has over the sandboxes it made, as root or not), so a write is
 * made only while the pidfd says the program has not ended, and a read
 * is kept only if it still has not after it: its pid cannot have been
 * given to another process before it ended. */
static int copy(const struct sbx_live *live, uint64_t addr, void *buf, size_t len, bool out)
{
    char *p = buf;
    while (len > 0) {
        struct iovec local = {p, len}, remote = {(void *)(uintptr_t)addr, len};
        if (out && ended(live)) {
            errno = ESRCH;
            return -1;
        }
        ssize_t n = out ? process_vm_writev(live->pid, &local, 1, &remote, 1, 0)
                        : process_vm_readv(live->pid, &local, 1, &remote, 1, 0);
        if (!out && ended(live)) {
            errno = ESRCH;
            return -1;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EFAULT;
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
