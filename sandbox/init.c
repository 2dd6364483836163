/*
 * init — inside the sandbox: the init (pid 1 of the new pid namespace) and
 * the workers it forks, from the judge's release to the status record
 * (run.c starts it; internal.h).
 *
 * The init (trusted code, but already inside the namespaces) becomes the
 * namespace's one user, builds the filesystem view (fsview.c), copies the
 * input files into /work, and runs each step in a worker: the worker moves
 * its descriptors into a fixed layout, closes every other one, starts a
 * new session (no controlling terminal: no TIOCSTI), applies the rlimits
 * (limits.c), sets no_new_privs, loads the seccomp filter (seccomp.c) and
 * execs. The filter is in force from the first instruction of the
 * program, before any constructor, ifunc resolver or .preinit_array entry
 * of the student's.
 *
 * In SBX_RUN the worker hands its seccomp listener to the init, which
 * watches it: the first forbidden call is recorded and the program killed.
 * The init measures CPU time and peak memory with wait4 (the kernel's
 * accounting, outside the program) and writes a status record to the
 * judge. Its exit ends the pid namespace, so the kernel kills whatever is
 * left: nothing survives a sandbox.
 *
 * Everything here is async-signal-safe (internal.h): the init is made with
 * a raw clone from a possibly multi-threaded judge.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

_Noreturn void sbx_init_main(const struct init_plan *plan)
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
