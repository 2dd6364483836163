/*
 * run — one sandbox, from clone to verdict-ready result.
 *
 * Processes:
 *
 *   judge ──clone3(new user/mnt/pid/net/ipc/uts ns, pidfd)──▶ init (pid 1)
 *                                                             │ raw fork
 *                                                             ▼
 *                                                   worker (pid 2, 3, ...)
 *                                             exec: gcc ... | the program
 *
 * This file is the judge's side: it checks the spec into the init's plan,
 * clones the init, writes its uid/gid maps, then releases it through the
 * sync pipe, and supervises it: it drains the output, result and status
 * pipes and holds the wall clock; in a conversation (sbx_spec.converse) it
 * hands what arrives on the result pipe to the judge's callback, with the
 * program's memory and CPU clock (live.c). What the init does inside is init.c;
 * how its status record becomes an sbx_result is result.c. The init's
 * exit ends the pid namespace, so the kernel kills whatever is left:
 * nothing survives a sandbox.
 *
 * The judge never looks at a path the sandbox could write: inputs go in and
 * the compiled program comes out through descriptors (memfds), so no
 * symlink planted by the sandbox can redirect a host file operation
 * (Judge0, CVE-2024-28185). The wall clock is the judge's: a sleeping or
 * stopped sandbox is killed through its pidfd.
 *
 * Everything between clone3 and exec is async-signal-safe (internal.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/internal.h"
#include "util/fs.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

/* ---- the judge's side ---- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A capped capture buffer for one pipe. */
struct capture {
    int fd;
    unsigned char *buf;
    size_t len, cap;
    bool truncated;
};

/* Reads what is available; returns 1 at EOF, 0 otherwise, -1 on error. */
static int capture_read(struct capture *c)
{
    unsigned char scratch[65536];
    ssize_t n = read(c->fd, scratch, sizeof scratch);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : -1;
    if (n == 0)
        return 1;
    size_t keep = (size_t)n;
    if (c->len + keep > c->cap) {
        keep = c->cap - c->len;
        c->truncated = true; /* keep draining, so the writer never blocks */
    }
    if (keep > 0) {
        memcpy(c->buf + c->len, scratch, keep);
        c->len += keep;
    }
    return 0;
}

/* Hands what arrived on the result channel to the judge's conversation
 * (sbx_spec.converse), opening the handles on the program the first time
 * and killing it when the judge says stop. 0, or -1 with err when the
 * program cannot be found (the judge's failure). */
static int converse(const struct sbx_spec *spec, struct capture *result, pid_t init,
                    struct sbx_live *live, bool *live_open, char *err, size_t errlen)
{
    bool stop = false;
    if (!*live_open) {
        if (sbx_live_open(init, live) < 0) {
            /* ESRCH: the program has ended since it wrote, and its result
             * says how; anything else is the judge's failure */
            if (errno == ESRCH)
                return 0;
            snprintf(err, errlen, "sandbox: cannot reach the running program: %s", strerror(errno));
            return -1;
        }
        *live_open = true;
    }
    size_t used = spec->converse(spec->converse_arg, result->buf, result->len, live, &stop);
    if (used > result->len)
        used = result->len;
    memmove(result->buf, result->buf + used, result->len - used);
    result->len -= used;
    if (stop)
        syscall(SYS_pidfd_send_signal, live->pidfd, SIGKILL, NULL, 0);
    return 0;
}

static pthread_once_t view_once = PTHREAD_ONCE_INIT;
static struct sbx_view_plan host_view;
static void plan_view_once(void)
{
    sbx_view_plan(&host_view);
}

static int check_spec(const struct sbx_spec *spec, struct init_plan *plan, char *err, size_t errlen)
{
    plan->spec = spec;
    plan->host_root = geteuid() == 0;
    pthread_once(&view_once, plan_view_once);
    plan->view = host_view;
    for (int i = 0; i < I_FILES + SBX_MAX_FILES; i++)
        plan->src_fds[i] = -1;
    plan->n_fds = I_FILES;
    if (spec->policy == SBX_COMPILE) {
        if (spec->n_steps < 1 || spec->n_steps > SBX_MAX_STEPS || spec->n_files < 0 ||
            spec->n_files > SBX_MAX_FILES || !spec->output_name) {
            snprintf(err, errlen, "sandbox: bad compile spec");
            return -1;
        }
        for (int i = 0; i < spec->n_files; i++) {
            const char *name = spec->files[i].name;
            if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
                strlen(name) > 60) {
                snprintf(err, errlen, "sandbox: bad file name");
                return -1;
            }
            snprintf(plan->file_paths[i], sizeof plan->file_paths[i], "/work/%s", name);
            plan->src_fds[I_FILES + i] = spec->files[i].fd;
        }
        if (strchr(spec->output_name, '/') || strlen(spec->output_name) > 60) {
            snprintf(err, errlen, "sandbox: bad output name");
            return -1;
        }
        snprintf(plan->output_path, sizeof plan->output_path, "/work/%s", spec->output_name);
        plan->src_fds[I_OUTPUT] = spec->output_fd;
        plan->n_fds = I_FILES + spec->n_files;
    } else {
        if (spec->exec_fd < 0 || spec->input_fd < 0) {
            snprintf(err, errlen, "sandbox: bad run spec");
            return -1;
        }
        plan->src_fds[I_INPUT] = spec->input_fd;
        plan->src_fds[I_EXEC] = spec->exec_fd;
    }
    plan->filter = sbx_seccomp_program(spec->policy, err, errlen);
    return plan->filter ? 0 : -1;
}

int sbx_run(const struct sbx_spec *spec, struct sbx_result *res, char *err, size_t errlen)
{
    struct init_plan plan;
    int out_p[2] = {-1, -1}, res_p[2] = {-1, -1}, st_p[2] = {-1, -1}, sync_p[2] = {-1, -1};
    int pidfd = -1;
    pid_t pid = -1;
    int rc = -1;
    struct capture out = {0}, result = {0}, status = {0};
    struct init_status st;
    struct sbx_live live = {.pidfd = -1};
    bool live_open = false;
    double start = now_ms();

    memset(res, 0, sizeof *res);
    memset(&st, 0, sizeof st);
    if (errlen > 0)
        err[0] = '\0';
    if (check_spec(spec, &plan, err, errlen) < 0)
        return -1;
    /* the sync channel is a socket so that writing to an init that already
     * died is EPIPE, not a SIGPIPE that would kill the judge (MSG_NOSIGNAL) */
    if (pipe2(out_p, O_CLOEXEC) < 0 || pipe2(res_p, O_CLOEXEC) < 0 || pipe2(st_p, O_CLOEXEC) < 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sync_p) < 0) {
        snprintf(err, errlen, "sandbox: pipe: %s", strerror(errno));
        goto out;
    }
    plan.src_fds[I_OUT] = out_p[1];
    plan.src_fds[I_STATUS] = st_p[1];
    plan.src_fds[I_SYNC] = sync_p[0];
    if (spec->policy == SBX_RUN)
        plan.src_fds[I_RESULT] = res_p[1];

    out.cap = spec->limits.output_cap;
    result.cap = spec->policy == SBX_RUN ? spec->result_cap : 0;
    status.cap = sizeof st;
    out.buf = malloc(out.cap + 1);
    result.buf = malloc(result.cap + 1);
    status.buf = malloc(status.cap);
    if (!out.buf || !result.buf || !status.buf) {
        snprintf(err, errlen, "sandbox: out of memory");
        goto out;
    }

    pid = sbx_clone_sandbox(&pidfd);
    if (pid < 0) {
        snprintf(err, errlen,
                 "sandbox: clone3 into new namespaces failed: %s (are unprivileged user "
                 "namespaces enabled? see docs/sandbox.md)",
                 strerror(errno));
        goto out;
    }
    if (pid == 0)
        sbx_init_main(&plan);

    close(out_p[1]);
    close(res_p[1]);
    close(st_p[1]);
    close(sync_p[0]);
    out_p[1] = res_p[1] = st_p[1] = sync_p[0] = -1;
    if (sbx_write_id_maps(pid, err, errlen) < 0 || send(sync_p[1], "g", 1, MSG_NOSIGNAL) != 1) {
        if (!err[0])
            snprintf(err, errlen, "sandbox: the init died before it was released");
        syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
        waitpid(pid, NULL, 0);
        goto out;
    }
    /* sync_p[1] stays open until the run is over: the init reads its
     * end-of-file as "the judge died" (see sbx_init_main) */

    out.fd = out_p[0];
    result.fd = res_p[0];
    status.fd = st_p[0];
    struct capture *caps[3] = {&out, &result, &status};
    bool open_[3] = {true, true, true};
    bool exited = false, timed_out = false;
    double deadline = start + (double)spec->limits.wall_ms;
    double drain_deadline = 0;
    bool talking = spec->policy == SBX_RUN && spec->converse;

    while (!exited || open_[0] || open_[1] || open_[2]) {
        struct pollfd p[4];
        int idx[4], np = 0;
        double t = now_ms();
        if (!exited && t >= deadline && !timed_out) {
            timed_out = true;
            syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
        }
        if (exited && drain_deadline == 0)
            drain_deadline = t + 2000;
        if (exited && t >= drain_deadline)
            break; /* a writer outlived the init: cannot happen, but bound it */
        for (int i = 0; i < 3; i++)
            if (open_[i]) {
                p[np].fd = caps[i]->fd;
                p[np].events = POLLIN;
                idx[np++] = i;
            }
        if (!exited) {
            p[np].fd = pidfd;
            p[np].events = POLLIN;
            idx[np++] = 3;
        }
        double until = exited ? drain_deadline : (timed_out ? t + 1000 : deadline);
        int timeout = (int)(until - t) + 1;
        if (poll(p, (nfds_t)np, timeout < 0 ? 0 : timeout) < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, errlen, "sandbox: poll: %s", strerror(errno));
            syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
            waitpid(pid, NULL, 0);
            goto out;
        }
        for (int k = 0; k < np; k++) {
            if (!p[k].revents)
                continue;
            if (idx[k] == 3) {
                exited = true;
                continue;
            }
            int r = capture_read(caps[idx[k]]);
            if (r != 0)
                open_[idx[k]] = false;
            if (talking && idx[k] == 1 && r == 0 && result.len > 0 && !exited &&
                converse(spec, &result, pid, &live, &live_open, err, errlen) < 0) {
                syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
                waitpid(pid, NULL, 0);
                goto out;
            }
            if (talking && idx[k] == 1)
                deadline = now_ms() + (double)spec->limits.wall_ms;
        }
    }
    res->wall_ms = now_ms() - start;

    siginfo_t si;
    memset(&si, 0, sizeof si);
    while (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) < 0 && errno == EINTR)
        ;

    bool got_status = status.len == sizeof st;
    if (got_status)
        memcpy(&st, status.buf, sizeof st);
    if (got_status && st.kind == INIT_SETUP_FAILED) {
        snprintf(err, errlen, "sandbox: %s: %s", st.what, strerror(st.err_no));
        goto out;
    }
    if (!got_status && !timed_out) {
        snprintf(err, errlen, "sandbox: init ended without a status (wait status %d/%d)",
                 si.si_code, si.si_status);
        goto out;
    }
    sbx_fill_result(spec, &st, got_status, timed_out, res);
    if (got_status && st.ready_us > 0 && (double)st.ready_us / 1000.0 >= start)
        res->setup_ms = (double)st.ready_us / 1000.0 - start;
    out.buf[out.len] = '\0';
    res->output = (char *)out.buf;
    res->output_len = out.len;
    res->output_truncated = out.truncated;
    out.buf = NULL;
    res->result = result.buf;
    res->result_len = result.len;
    res->result_truncated = result.truncated;
    result.buf = NULL;
    rc = 0;
out:
    if (live_open)
        sbx_live_close(&live);
    free(out.buf);
    free(result.buf);
    free(status.buf);
    int fds[] = {out_p[0], out_p[1],  res_p[0],  res_p[1], st_p[0],
                 st_p[1],  sync_p[0], sync_p[1], pidfd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    return rc;
}

int sbx_memfd_new(const char *name)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_EXEC);
    if (fd < 0 && errno == EINVAL) /* kernels before 6.3 know no MFD_EXEC */
        fd = memfd_create(name, MFD_CLOEXEC);
    return fd;
}

int sbx_memfd_seal(int fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int ro = open(path, O_RDONLY | O_CLOEXEC);
    int saved = errno;
    close(fd);
    errno = saved;
    return ro;
}

int sbx_memfd_from(const char *name, const void *data, size_t len)
{
    int fd = sbx_memfd_new(name);
    if (fd < 0)
        return -1;
    if (fs_write_all(fd, data, len) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return sbx_memfd_seal(fd);
}
