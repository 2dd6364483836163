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
 * The judge writes the init's uid/gid maps, then releases it through the
 * sync pipe. The init (trusted code, but already inside the namespaces)
 * builds the filesystem view (fsview.c), copies the input files into
 * /work, and runs each step in a worker: the worker moves its descriptors
 * into a fixed layout, closes every other one, starts a new session (no
 * controlling terminal: no TIOCSTI), applies the rlimits (limits.c), sets
 * no_new_privs, loads the seccomp filter (seccomp.c) and execs. The filter
 * is in force from the first instruction of the program, before any
 * constructor, ifunc resolver or .preinit_array entry of the student's.
 *
 * In SBX_RUN the worker hands its seccomp listener to the init, which
 * watches it: the first forbidden call is recorded and the program killed.
 * The init measures CPU time and peak memory with wait4 (the kernel's
 * accounting, outside the program) and writes a status record to the
 * judge. Its exit ends the pid namespace, so the kernel kills whatever is
 * left: nothing survives a sandbox.
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
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/internal.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

/* What the init tells the judge when it is done. */
enum init_kind {
    INIT_EXITED,
    INIT_SIGNALED,
    INIT_VIOLATION,
    INIT_EXEC_FAILED,
    INIT_OUTPUT_TOO_BIG,
    INIT_OUTPUT_MISSING,
    INIT_SETUP_FAILED,
};

struct init_status {
    int kind;
    int step;
    int exit_code;
    int signal;
    int err_no;
    long syscall_nr;
    long cpu_us;
    long max_rss_kb;
    /* CLOCK_MONOTONIC (system-wide) in µs: when the view was ready, and
     * when each compile step started and ended (bench figures) */
    long ready_us;
    long step_start_us[SBX_MAX_STEPS], step_end_us[SBX_MAX_STEPS];
    char what[80];
};

/* The init's descriptor layout after remapping. */
enum {
    I_OUT,    /* stdout+stderr pipe to the judge */
    I_STATUS, /* status record to the judge */
    I_SYNC,   /* the judge's "maps written" byte */
    I_RESULT, /* SBX_RUN result pipe */
    I_INPUT,  /* SBX_RUN program input */
    I_EXEC,   /* SBX_RUN program */
    I_OUTPUT, /* SBX_COMPILE output file */
    I_FILES,  /* SBX_COMPILE input files, n_files of them */
};

/* Everything the init needs, prepared by the judge before clone3. */
struct init_plan {
    const struct sbx_spec *spec;
    const struct sock_fprog *filter;
    struct sbx_view_plan view;
    bool host_root;
    int src_fds[I_FILES + SBX_MAX_FILES]; /* judge's descriptors, -1 = none */
    int n_fds;
    char file_paths[SBX_MAX_FILES][80]; /* "/work/<name>" */
    char output_path[80];
};

static char *const empty_env[] = {NULL};
/* The compiler finds `as` and `ld` through PATH; nothing else is passed. */
static char *const compile_env[] = {"PATH=/usr/bin", NULL};

/* ---- async-signal-safe helpers for the init and the worker ---- */

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void copy_what(char *dst, size_t len, const char *what)
{
    size_t n = strlen(what);
    if (n >= len)
        n = len - 1;
    memcpy(dst, what, n);
    dst[n] = '\0';
}

/* Moves src[i] to descriptor dst[i] (cloexec[i] sets FD_CLOEXEC; src -1
 * leaves dst closed) and closes every other descriptor. Targets must be
 * small (< 32); sources may be anywhere. */
static int remap_fds(const int *src, const int *dst, const bool *cloexec, int n)
{
    int tmp[24];
    int maxdst = -1;
    for (int i = 0; i < n; i++) {
        tmp[i] = -1;
        if (src[i] < 0)
            continue;
        tmp[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 32);
        if (tmp[i] < 0)
            return -1;
    }
    for (int i = 0; i < n; i++)
        if (dst[i] > maxdst)
            maxdst = dst[i];
    /* close everything below the temporaries that will not be a target */
    if (close_range(0, 31, 0) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if (tmp[i] < 0)
            continue;
        if (dup3(tmp[i], dst[i], cloexec[i] ? O_CLOEXEC : 0) < 0)
            return -1;
    }
    return close_range((unsigned)maxdst + 1, ~0U, 0);
}

static _Noreturn void init_fail(struct init_status *st, const char *what)
{
    st->kind = INIT_SETUP_FAILED;
    st->err_no = errno;
    copy_what(st->what, sizeof st->what, what);
    write_all(I_STATUS, st, sizeof *st);
    _exit(1);
}

/* CLOCK_MONOTONIC in µs (clock_gettime is async-signal-safe). */
static long mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

/* Worker-side: report errno through the error pipe and exit. */
static _Noreturn void worker_fail(int err_fd, int stage)
{
    int rec[2] = {stage, errno};
    write_all(err_fd, rec, sizeof rec);
    _exit(127);
}

enum { STAGE_SETUP = 1, STAGE_EXEC = 2 };

/* Worker descriptor layout for both policies. */
enum { W_ERR = 6, W_NSYNC = 7, W_NACK = 8 };

static _Noreturn void worker_compile(const struct init_plan *plan, int step, int err_w)
{
    const struct sbx_spec *spec = plan->spec;
    const char *what;
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int src[] = {devnull, I_OUT, I_OUT, err_w};
    int dst[] = {0, 1, 2, W_ERR};
    bool cx[] = {false, false, false, true};

    if (devnull < 0 || remap_fds(src, dst, cx, 4) < 0)
        worker_fail(err_w, STAGE_SETUP);
    if (setsid() < 0 || chdir("/work") < 0 ||
        sbx_limits_apply(SBX_COMPILE, &spec->limits, &what) < 0 ||
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || sbx_seccomp_load(plan->filter, false) < 0)
        worker_fail(W_ERR, STAGE_SETUP);
    execve(spec->steps[step][0], (char *const *)spec->steps[step], compile_env);
    worker_fail(W_ERR, STAGE_EXEC);
}

static _Noreturn void worker_run(const struct init_plan *plan, int err_w, int nsync_w, int nack_r)
{
    const char *what;
    int in[2];
    if (pipe2(in, O_CLOEXEC) < 0)
        worker_fail(err_w, STAGE_SETUP);
    close(in[1]); /* stdin: an empty pipe that reads end-of-file */
    int src[] = {in[0], I_OUT, I_OUT, I_INPUT, I_RESULT, I_EXEC, err_w, nsync_w, nack_r};
    int dst[] = {0,     1,       2,     SBX_RUN_INPUT_FD, SBX_RUN_RESULT_FD, SBX_RUN_EXEC_FD,
                 W_ERR, W_NSYNC, W_NACK};
    bool cx[] = {false, false, false, false, false, true, true, true, true};
    char *const argv[] = {"solution", NULL};

    if (remap_fds(src, dst, cx, 9) < 0)
        worker_fail(err_w, STAGE_SETUP);
    if (setsid() < 0 || sbx_limits_apply(SBX_RUN, &plan->spec->limits, &what) < 0 ||
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        worker_fail(W_ERR, STAGE_SETUP);
    int listener = sbx_seccomp_load(plan->filter, true);
    if (listener < 0)
        worker_fail(W_ERR, STAGE_SETUP);
    /* from here on, only calls the run filter allows */
    char ack;
    if (write_all(W_NSYNC, &listener, sizeof listener) < 0 || read(W_NACK, &ack, 1) != 1)
        worker_fail(W_ERR, STAGE_SETUP);
    close(listener);
    syscall(SYS_execveat, SBX_RUN_EXEC_FD, "", argv, empty_env, AT_EMPTY_PATH);
    worker_fail(W_ERR, STAGE_EXEC);
}

/* Reads a worker's error record after it ended: 0 if it exec'd. */
static int read_worker_error(int err_r, int *stage, int *err_no)
{
    int rec[2];
    ssize_t n = read(err_r, rec, sizeof rec);
    if (n != (ssize_t)sizeof rec)
        return 0;
    *stage = rec[0];
    *err_no = rec[1];
    return 1;
}

static void account(struct init_status *st, const struct rusage *ru)
{
    st->cpu_us += ru->ru_utime.tv_sec * 1000000L + ru->ru_utime.tv_usec +
                  ru->ru_stime.tv_sec * 1000000L + ru->ru_stime.tv_usec;
    if (ru->ru_maxrss > st->max_rss_kb)
        st->max_rss_kb = ru->ru_maxrss;
}

static void set_exit(struct init_status *st, int wstatus)
{
    if (WIFSIGNALED(wstatus)) {
        st->kind = INIT_SIGNALED;
        st->signal = WTERMSIG(wstatus);
    } else {
        st->kind = INIT_EXITED;
        st->exit_code = WEXITSTATUS(wstatus);
    }
}

/* Runs the compile steps; returns with st filled. */
static void init_compile(const struct init_plan *plan, struct init_status *st)
{
    const struct sbx_spec *spec = plan->spec;
    char buf[65536];

    for (int i = 0; i < spec->n_files; i++) {
        int fd =
            open(plan->file_paths[i], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        off_t off = 0;
        ssize_t n;
        if (fd < 0)
            init_fail(st, "create an input file in /work");
        while ((n = pread(I_FILES + i, buf, sizeof buf, off)) > 0) {
            if (write_all(fd, buf, (size_t)n) < 0)
                init_fail(st, "write an input file in /work");
            off += n;
        }
        if (n < 0)
            init_fail(st, "read an input file");
        close(fd);
    }

    for (int step = 0; step < spec->n_steps; step++) {
        int errp[2];
        int wstatus;
        struct rusage ru;
        if (pipe2(errp, O_CLOEXEC) < 0)
            init_fail(st, "pipe");
        st->step = step;
        st->step_start_us[step] = mono_us();
        pid_t pid = sbx_raw_fork();
        if (pid < 0)
            init_fail(st, "fork the compiler");
        if (pid == 0) {
            close(errp[0]);
            worker_compile(plan, step, errp[1]);
        }
        close(errp[1]);
        while (wait4(pid, &wstatus, 0, &ru) < 0)
            if (errno != EINTR)
                init_fail(st, "wait4");
        st->step_end_us[step] = mono_us();
        account(st, &ru);
        int stage, err_no;
        if (read_worker_error(errp[0], &stage, &err_no)) {
            errno = err_no;
            close(errp[0]);
            init_fail(st, stage == STAGE_EXEC ? "exec the compiler" : "set up the compiler");
        }
        close(errp[0]);
        set_exit(st, wstatus);
        if (st->kind != INIT_EXITED || st->exit_code != 0)
            return;
    }

    /* copy the product out by descriptor; never follow a link the
     * compiler could have planted */
    int fd = open(plan->output_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        st->kind = INIT_OUTPUT_MISSING;
        if (fd >= 0)
            close(fd);
        return;
    }
    if (sb.st_size > spec->output_max) {
        st->kind = INIT_OUTPUT_TOO_BIG;
        close(fd);
        return;
    }
    off_t left = sb.st_size;
    while (left > 0) {
        ssize_t n = sendfile(I_OUTPUT, fd, NULL, (size_t)left);
        if (n <= 0)
            init_fail(st, "copy the program out");
        left -= n;
    }
    close(fd);
}

/* Runs the program once, supervising its seccomp listener. */
static void init_run(const struct init_plan *plan, struct init_status *st)
{
    int errp[2], nsync[2], nack[2];
    int wstatus;
    struct rusage ru;

    if (pipe2(errp, O_CLOEXEC) < 0 || pipe2(nsync, O_CLOEXEC) < 0 || pipe2(nack, O_CLOEXEC) < 0)
        init_fail(st, "pipe");
    pid_t pid = sbx_raw_fork();
    if (pid < 0)
        init_fail(st, "fork the program");
    if (pid == 0)
        worker_run(plan, errp[1], nsync[1], nack[0]);
    close(errp[1]);
    close(nsync[1]);
    close(nack[0]);

    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0)
        init_fail(st, "pidfd_open");
    int listener = -1, remote;
    ssize_t n = read(nsync[0], &remote, sizeof remote);
    if (n == (ssize_t)sizeof remote) {
        listener = (int)syscall(SYS_pidfd_getfd, pidfd, remote, 0);
        if (listener < 0) {
            kill(pid, SIGKILL);
            init_fail(st, "pidfd_getfd of the seccomp listener");
        }
        if (write_all(nack[1], "x", 1) < 0)
            init_fail(st, "release the program");
    }
    close(nack[1]);
    close(nsync[0]);

    bool violated = false;
    for (;;) {
        struct pollfd p[2] = {{pidfd, POLLIN, 0}, {listener, POLLIN, 0}};
        int np = listener >= 0 ? 2 : 1;
        if (poll(p, (nfds_t)np, -1) < 0) {
            if (errno == EINTR)
                continue;
            init_fail(st, "poll");
        }
        if (np == 2 && (p[1].revents & POLLIN)) {
            struct seccomp_notif notif;
            memset(&notif, 0, sizeof notif);
            if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &notif) == 0 && !violated) {
                violated = true;
                st->syscall_nr = notif.data.nr;
                /* the call never ran; nothing after it will */
                kill(pid, SIGKILL);
            }
        } else if (np == 2 && (p[1].revents & (POLLHUP | POLLERR))) {
            close(listener);
            listener = -1;
        }
        if (p[0].revents & POLLIN)
            break;
    }
    while (wait4(pid, &wstatus, 0, &ru) < 0)
        if (errno != EINTR)
            init_fail(st, "wait4");
    account(st, &ru);
    int stage, err_no;
    if (read_worker_error(errp[0], &stage, &err_no)) {
        if (stage == STAGE_EXEC) {
            st->kind = INIT_EXEC_FAILED;
            st->err_no = err_no;
            return;
        }
        errno = err_no;
        init_fail(st, "set up the program");
    }
    set_exit(st, wstatus);
    if (violated)
        st->kind = INIT_VIOLATION;
}

static _Noreturn void init_main(const struct init_plan *plan)
{
    struct init_status st;
    const char *what = "";
    bool cx[I_FILES + SBX_MAX_FILES];
    int dst[I_FILES + SBX_MAX_FILES];
    char sync;

    memset(&st, 0, sizeof st);
    for (int i = 0; i < plan->n_fds; i++) {
        dst[i] = i;
        cx[i] = true;
    }
    /* keep only our own descriptors: a server's sockets and database must
     * not be inherited by anything in the sandbox */
    if (remap_fds(plan->src_fds, dst, cx, plan->n_fds) < 0)
        _exit(1);
    /* if the judge dies, the sandbox dies with it */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        init_fail(&st, "PR_SET_PDEATHSIG");
    if (read(I_SYNC, &sync, 1) != 1)
        _exit(1); /* the judge gave up (or died) before releasing us */
    /* as root, drop root's supplementary groups (unprivileged judges
     * cannot, and their groups are their own) */
    if (plan->host_root && syscall(SYS_setgroups, 0, NULL) < 0)
        init_fail(&st, "setgroups");
    /* become the namespace's one mapped user: a judge running as root is
     * otherwise an unmapped (overflow) id that can create no file. Raw
     * calls: glibc's wrappers would try to change the ids of every thread
     * of the judge, which this process only has copies of, and wait for
     * them forever. */
    if (syscall(SYS_setresgid, SBX_INNER_ID, SBX_INNER_ID, SBX_INNER_ID) < 0 ||
        syscall(SYS_setresuid, SBX_INNER_ID, SBX_INNER_ID, SBX_INNER_ID) < 0)
        init_fail(&st, "setresuid");
    /* the kernel clears the parent-death signal on every change of ids, so
     * arm it again; the judge keeps its end of the sync socket open until
     * the run is over, so end-of-file now means it died before the signal
     * was armed (getppid() says nothing here: it is 0 in a new pid
     * namespace) */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        init_fail(&st, "PR_SET_PDEATHSIG");
    if (recv(I_SYNC, &sync, 1, MSG_DONTWAIT) >= 0 || errno != EAGAIN)
        _exit(1);
    close(I_SYNC);
    /* changing ids made us non-dumpable, and the program would inherit
     * that; the init must be able to take its seccomp listener
     * (pidfd_getfd checks ptrace access) */
    if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
        init_fail(&st, "PR_SET_DUMPABLE");
    if (sethostname("sandbox", 7) < 0)
        init_fail(&st, "sethostname");
    if (sbx_view_enter(plan->spec->policy, &plan->spec->limits, &plan->view, &what) < 0)
        init_fail(&st, what);
    st.ready_us = mono_us();

    if (plan->spec->policy == SBX_COMPILE)
        init_compile(plan, &st);
    else
        init_run(plan, &st);
    write_all(I_STATUS, &st, sizeof st);
    _exit(0);
}

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

static void fill_result(const struct sbx_spec *spec, const struct init_status *st, bool got_status,
                        bool timed_out, struct sbx_result *res)
{
    res->cpu_ms = (double)st->cpu_us / 1000.0;
    res->max_rss_kb = st->max_rss_kb;
    res->step = st->step;
    res->syscall_nr = -1;
    for (int i = 0; i <= st->step && i < SBX_MAX_STEPS; i++)
        if (st->step_end_us[i] >= st->step_start_us[i] && st->step_start_us[i] > 0)
            res->step_wall_ms[i] = (double)(st->step_end_us[i] - st->step_start_us[i]) / 1000.0;
    if (!got_status || timed_out) {
        res->status = SBX_TIME_WALL;
        return;
    }
    switch (st->kind) {
    case INIT_VIOLATION:
        res->status = SBX_VIOLATION;
        res->syscall_nr = st->syscall_nr;
        sbx_seccomp_name(st->syscall_nr, res->syscall_name, sizeof res->syscall_name);
        return;
    case INIT_EXEC_FAILED:
        res->status = SBX_EXEC_FAILED;
        res->exec_errno = st->err_no;
        return;
    case INIT_OUTPUT_TOO_BIG: res->status = SBX_OUTPUT_TOO_BIG; return;
    case INIT_OUTPUT_MISSING: res->status = SBX_OUTPUT_MISSING; return;
    case INIT_SIGNALED:
        res->status = SBX_SIGNALED;
        res->signal = st->signal;
        break;
    default:
        res->status = SBX_EXITED;
        res->exit_code = st->exit_code;
        break;
    }
    /* the kernel's CPU accounting decides: a program that finished but took
     * too long is over the limit; so is one killed by RLIMIT_CPU's SIGKILL,
     * whose time as wait4 reports it can read well short of the limit on a
     * loaded machine (seen: 891 ms at a 1 s limit). Nothing else sends that
     * SIGKILL: the init's kill is a violation, the judge's wall clock kills
     * the init itself, and a program that kills itself after burning half
     * its limit may as well be called slow. */
    double rlimit_ms = (double)((spec->limits.cpu_ms + 999) / 1000 * 1000);
    if (res->cpu_ms > (double)spec->limits.cpu_ms &&
        (spec->policy == SBX_RUN || res->status == SBX_SIGNALED))
        res->status = SBX_TIME_CPU;
    else if (res->status == SBX_SIGNALED &&
             (st->signal == SIGXCPU || (st->signal == SIGKILL && res->cpu_ms >= rlimit_ms / 2)))
        res->status = SBX_TIME_CPU;
    else if (res->status == SBX_SIGNALED && st->signal == SIGSYS) {
        /* killed by the filter's bad-architecture action: a system call
         * through a foreign ABI (int 0x80, x32) */
        res->status = SBX_VIOLATION;
        snprintf(res->syscall_name, sizeof res->syscall_name, "foreign syscall ABI");
    }
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
        init_main(&plan);

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
     * end-of-file as "the judge died" (see init_main) */

    out.fd = out_p[0];
    result.fd = res_p[0];
    status.fd = st_p[0];
    struct capture *caps[3] = {&out, &result, &status};
    bool open_[3] = {true, true, true};
    bool exited = false, timed_out = false;
    double deadline = start + (double)spec->limits.wall_ms;
    double drain_deadline = 0;

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
    fill_result(spec, &st, got_status, timed_out, res);
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

void sbx_result_free(struct sbx_result *res)
{
    free(res->output);
    free(res->result);
    res->output = NULL;
    res->result = NULL;
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
    if (write_all(fd, data, len) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return sbx_memfd_seal(fd);
}
