/*
 * explain — the plain words of a failed test (the header says who uses
 * them).
 *
 * Theory of operation. Three tables (signals, forbidden system calls,
 * non-finite outputs) and one switch (limits and early exits) hold every
 * sentence; the functions below only look a row up and join sentences.
 * Each text says what happened in the student's terms, then what to check
 * ("a NULL pointer", "a division by a zero sum?"). Which line was at
 * fault is known only for a crash on a sample test (judge/crashsite.c);
 * these texts name the kinds of line that usually are.
 *
 * Nothing here reads test data. A caller passes what the student may see
 * of the test (names of NULL tensors and coordinates: sample tests only),
 * and the report drops every message of a hidden test from the student's
 * view (judge/report.c), so a text can never carry hidden data out.
 */
#include "judge/explain.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- signals ---- */

static const struct {
    int sig;
    const char *text; /* a sentence without its final period */
} signals[] = {
    {SIGSEGV, "SIGSEGV: the function read or wrote outside an array (an index past an end or "
              "below 0, a NULL pointer, or a local array too large for the stack)"},
    {SIGBUS, "SIGBUS: the function accessed memory through a bad address (a pointer past the "
             "end of a mapping, or one misaligned for its type)"},
    {SIGFPE, "SIGFPE: an integer division by zero (or INT_MIN / -1): a count or a size that is "
             "0 here, used as a divisor? (float division by zero gives inf, never this)"},
    {SIGABRT, "SIGABRT: the program aborted: an assert() failed or abort() was called, or the C "
              "library found the heap corrupted (a write past the end of a malloc'd block, or a "
              "double free)"},
    {SIGILL, "SIGILL: an illegal instruction: __builtin_trap() or __builtin_unreachable() was "
             "reached, or the code uses an instruction this machine lacks (AVX-512 "
             "intrinsics?)"},
    {SIGTRAP, "SIGTRAP: a breakpoint instruction was reached (__builtin_debugtrap() or an int3 "
              "left in the code?)"},
    {SIGSYS, "SIGSYS: a system call the sandbox refuses, through an interface it forbids"},
    {SIGKILL, "SIGKILL: the program was killed, most likely for going over a resource limit"},
    {SIGXCPU, "SIGXCPU: the program reached its CPU time limit"},
    {SIGXFSZ, "SIGXFSZ: the program wrote a file past its size limit: solutions may not write "
              "files"},
    {SIGPIPE, "SIGPIPE: the program wrote to a pipe that nobody reads (did it close one of the "
              "judge's descriptors?)"},
};

void explain_signal(int sig, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        if (signals[i].sig == sig) {
            snprintf(buf, len, "%s", signals[i].text);
            return;
        }
    const char *abbrev = sigabbrev_np(sig);
    /* SIGTERM, SIGINT, SIGUSR1...: nothing outside can send them (the
     * sandbox is its own pid namespace), so the program raised them */
    snprintf(buf, len,
             "SIG%s: the program stopped on signal %d, which it sent itself (raise() or "
             "kill()?)",
             abbrev ? abbrev : "?", sig);
}

/* ---- forbidden system calls (docs/sandbox.md, the run allow-list) ---- */

#define SYSCALL_GROUP_MAX 20

static const struct {
    const char *names[SYSCALL_GROUP_MAX]; /* as the sandbox names them */
    const char *what;                     /* "tried to ..." */
    const char *why;
} syscalls[] = {
    {{"open", "openat", "openat2", "creat", "open_by_handle_at"},
     "tried to open a file",
     "solutions may not read files; everything the function needs arrives in its arguments"},
    {{"stat", "lstat", "access", "faccessat", "faccessat2", "statx", "readlinkat", "getdents",
      "getdents64", "getcwd", "chdir", "fchdir", "statfs", "fstatfs"},
     "tried to look at the file system",
     "solutions may not read files; everything the function needs arrives in its arguments"},
    {{"mkdir",     "mkdirat", "rmdir",  "unlink",  "unlinkat",  "rename",  "renameat",
      "renameat2", "link",    "linkat", "symlink", "symlinkat", "chmod",   "fchmod",
      "fchmodat",  "chown",   "fchown", "lchown",  "fchownat",  "truncate"},
     "tried to change the file system",
     "solutions may not create, change or remove files"},
    {{"ftruncate", "mknod", "mknodat", "utimensat", "fsync", "fdatasync", "sync"},
     "tried to change or flush a file",
     "solutions may not create, change or remove files"},
    {{"execve", "execveat"},
     "tried to run another program",
     "solutions may not start programs (no system(), popen() or exec)"},
    {{"fork", "vfork", "clone", "clone3"},
     "tried to start a process or a thread",
     "a solution runs as one single-threaded process (no fork(), pthread_create() or OpenMP)"},
    {{"wait4", "waitid"},
     "tried to wait for a child process",
     "a solution runs as one single-threaded process (no fork(), pthread_create() or OpenMP)"},
    {{"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "sendto",
      "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "shutdown", "getsockopt",
      "setsockopt", "getsockname", "getpeername"},
     "tried to use the network",
     "solutions may not communicate with anything"},
    {{"kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_send_signal",
      "pidfd_open"},
     "tried to send a signal to a process",
     "only abort() and raise() may send one, and only to the program itself"},
    {{"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd"},
     "tried to inspect or control a process",
     "debugging calls do not work in the judge: debug on your own machine"},
    {{"ioctl"},
     "tried to control a device or a terminal",
     "a solution has neither; printf needs no terminal"},
    {{"pipe", "pipe2", "dup", "dup2", "dup3", "fcntl", "eventfd", "eventfd2", "memfd_create",
      "signalfd", "signalfd4", "inotify_init", "inotify_init1"},
     "tried to create or copy a file descriptor",
     "a solution may only print to standard output and standard error"},
    {{"splice", "vmsplice", "tee", "sendfile", "copy_file_range"},
     "tried to move data between file descriptors",
     "a solution may only print to standard output and standard error"},
    {{"poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl",
      "epoll_wait", "epoll_pwait", "epoll_pwait2"},
     "tried to wait for input or output",
     "a solution reads nothing while it runs: its inputs are already in its arguments"},
    {{"io_uring_setup", "io_uring_enter", "io_uring_register", "io_setup", "io_submit",
      "io_getevents", "io_destroy", "io_cancel"},
     "tried to use asynchronous I/O",
     "a solution may only print to standard output and standard error"},
    {{"prctl", "seccomp", "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "capset",
      "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
      "personality", "landlock_create_ruleset", "landlock_restrict_self"},
     "tried to change the process's privileges or isolation",
     "solutions may not do that"},
    {{"setrlimit", "prlimit64"},
     "tried to change a resource limit",
     "the limits are fixed by the problem"},
    {{"mlock", "mlock2", "mlockall", "munlock", "munlockall", "mbind", "set_mempolicy",
      "migrate_pages", "move_pages", "userfaultfd", "pkey_alloc", "pkey_mprotect"},
     "tried to pin or place memory",
     "malloc, free and plain arrays are all a solution needs"},
    {{"shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semctl", "msgget", "msgsnd",
      "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive"},
     "tried to share memory or messages with other processes",
     "a solution works alone"},
    {{"alarm", "setitimer", "getitimer", "timer_create", "timer_settime", "timer_gettime",
      "timer_delete", "timerfd_create", "timerfd_settime", "pause"},
     "tried to set a timer or wait for a signal",
     "the judge measures time itself; a solution needs no timers"},
    {{"sched_setaffinity", "sched_getaffinity", "sched_setscheduler", "sched_setparam",
      "sched_getscheduler", "sched_getparam", "setpriority", "getpriority", "getcpu"},
     "tried to query or change CPU scheduling",
     "a solution runs on one CPU; do not size work by the number of cores"},
    {{"uname", "sysinfo", "syslog", "getrusage", "times", "getuid", "geteuid", "getgid", "getegid",
      "getppid", "getpgid", "getsid", "getgroups", "getresuid", "getresgid"},
     "tried to ask about the system or the user it runs as",
     "a solution computes from its arguments alone"},
    {{"modify_ldt", "iopl", "ioperm", "foreign syscall ABI"},
     "made a low-level call that 64-bit programs do not need",
     "solutions run as plain 64-bit code (no int 0x80, x32 or segment tricks)"},
    {{"bpf",           "perf_event_open", "keyctl",          "add_key",
      "request_key",   "init_module",     "finit_module",    "delete_module",
      "reboot",        "kexec_load",      "kexec_file_load", "acct",
      "quotactl",      "swapon",          "swapoff",         "settimeofday",
      "clock_settime", "adjtimex",        "sethostname",     "setdomainname"},
     "tried a privileged operation of the kernel",
     "solutions may not do that"},
};

void explain_syscall(const char *name, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof syscalls / sizeof syscalls[0]; i++)
        for (int k = 0; k < SYSCALL_GROUP_MAX && syscalls[i].names[k]; k++)
            if (strcmp(syscalls[i].names[k], name) == 0) {
                snprintf(buf, len, "%s (%s): %s", syscalls[i].what, name, syscalls[i].why);
                return;
            }
    snprintf(buf, len,
             "made a system call the sandbox forbids (%s): a solution may compute, allocate "
             "memory and print, nothing else",
             name);
}

/* ---- joining sentences ---- */

/* Appends printf-formatted text to *s (a new string when *s is NULL).
 * Returns 0, or -1 when out of memory (*s is then freed and NULL). */
static int append(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int append(char **s, const char *fmt, ...)
{
    va_list ap;
    char *more = NULL, *joined = NULL;

    va_start(ap, fmt);
    int n = vasprintf(&more, fmt, ap);
    va_end(ap);
    if (n < 0 || asprintf(&joined, "%s%s", *s ? *s : "", more) < 0)
        joined = NULL;
    free(more);
    free(*s);
    *s = joined;
    return joined ? 0 : -1;
}

char *explain_crash(int sig, const char *const *nulls, int n_nulls, const char *hint)
{
    char text[512];
    char *s = NULL;

    explain_signal(sig, text, sizeof text);
    if (append(&s, "%s.", text) < 0)
        return NULL;
    if (sig == SIGSEGV || sig == SIGBUS) {
        for (int i = 0; i < n_nulls; i++)
            if (append(&s, "%s`%s`",
                       i == 0             ? " In this test "
                       : i == n_nulls - 1 ? " and "
                                          : ", ",
                       nulls[i]) < 0)
                return NULL;
        if (n_nulls > 0 &&
            append(&s, n_nulls == 1
                           ? " is NULL: does the function read it without checking?"
                           : " are NULL: does the function read them without checking?") < 0)
            return NULL;
        if (hint && append(&s, " Hint: %s", hint) < 0)
            return NULL;
    }
    return s;
}

char *explain_crash_site(const char *file, int line, const char *code, bool in_callee)
{
    char *s = NULL;
    if (append(&s, "It crashed %sat %s:%d: `%s`.",
               in_callee ? "in a C library function called " : "", file, line, code) < 0)
        return NULL;
    return s;
}

char *explain_crash_unlocated(void)
{
    char *s = NULL;
    if (append(&s, "The judge could not tell the line: download the sample case (the problem "
                   "page's \"Download sample case\", or `attnjudge export --samples-archive`) "
                   "and run `make check-asan && ./check-asan`, which stops at the line of an "
                   "out-of-bounds read or write.") < 0)
        return NULL;
    return s;
}

char *explain_mask_shape(const char *mask, const char *shape, const char *missing_batch,
                         bool may_be_null)
{
    char *s = NULL;

    if (append(&s, "`%s` has shape (%s)", mask, shape) < 0)
        return NULL;
    if (missing_batch &&
        append(&s, ", with no %s dimension: one mask serves every batch", missing_batch) < 0)
        return NULL;
    if (append(&s, ".%s", may_be_null ? " It may be NULL." : "") < 0)
        return NULL;
    return s;
}

/* ---- non-finite outputs ---- */

static const struct {
    const char *label;
    const char *advice;
} nonfinite[CMP_NONFINITE_KINDS] = {
    [CMP_NAN_UNWRITTEN] = {"NaN, never written",
                           "still the judge's fill pattern (0xFFFFFFFF), so your code never "
                           "assigned a value there (a loop that stops early or skips a part?), "
                           "or copied it from malloc'd memory it never filled, which starts with "
                           "the same bytes"},
    [CMP_NAN_COMPUTED] = {"NaN, computed",
                          "your code computed NaN there: exp overflow? 0/0? a division by a zero "
                          "sum?"},
    [CMP_POS_INF] = {"+inf, computed",
                     "your code computed +inf there: an overflow (exp of a large score without "
                     "subtracting the row maximum?) or a division by zero"},
    [CMP_NEG_INF] = {"-inf, computed",
                     "your code computed -inf there: an overflow, or log(0) of a sum that came "
                     "out 0?"},
};

const char *explain_nonfinite_label(enum compare_nonfinite k)
{
    return (unsigned)k < CMP_NONFINITE_KINDS ? nonfinite[k].label : NULL;
}

const char *explain_nonfinite(enum compare_nonfinite k)
{
    return (unsigned)k < CMP_NONFINITE_KINDS ? nonfinite[k].advice : NULL;
}

static void fmt_value(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "NaN");
    else if (isinf(v))
        snprintf(buf, len, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, len, "%.9g", v);
}

char *explain_tensor(const char *name, const int64_t *shape, int rank,
                     const struct compare_result *c, bool coords)
{
    char *s = NULL, where[160];

    for (int k = 0; k < CMP_NONFINITE_KINDS; k++) {
        if (!c->n_kind[k])
            continue;
        if (append(&s, "%s%s: %" PRId64 " of %" PRId64 " elements %s %s", s ? "; " : "", name,
                   c->n_kind[k], c->n_elems, c->n_kind[k] == 1 ? "is" : "are",
                   nonfinite[k].label) < 0)
            return NULL;
        for (int j = 0; coords && j < c->n_first[k]; j++) {
            int64_t coord[TENSOR_MAX_RANK];
            compare_index_coord(c->first[k][j], shape, rank, coord);
            compare_format_coord(name, coord, rank, where, sizeof where);
            if (append(&s, "%s%s", j ? ", " : " (first at ", where) < 0)
                return NULL;
        }
        if (append(&s, "%s: %s", coords && c->n_first[k] ? ")" : "", nonfinite[k].advice) < 0)
            return NULL;
    }
    if (c->n_mismatch == c->n_nonfinite)
        return s;
    /* elements outside tolerance: the first one shown, or the statistics;
     * counted on their own when the non-finite ones came first */
    char count[64];
    if (c->n_nonfinite)
        snprintf(count, sizeof count, "%" PRId64 " more element%s outside tolerance",
                 c->n_mismatch - c->n_nonfinite, c->n_mismatch - c->n_nonfinite == 1 ? "" : "s");
    else
        snprintf(count, sizeof count, "%" PRId64 " of %" PRId64 " elements outside tolerance",
                 c->n_mismatch, c->n_elems);
    const struct mismatch *m = NULL;
    for (int i = 0; coords && !m && i < c->n_shown; i++)
        if (c->shown[i].kind == CMP_FINITE)
            m = &c->shown[i];
    if (m) {
        char e[32], g[32];
        compare_format_coord(name, m->coord, rank, where, sizeof where);
        fmt_value(e, sizeof e, m->expected);
        fmt_value(g, sizeof g, m->got);
        if (append(&s, "%s%s: expected %s, got %s (%s)", s ? "; " : "", where, e, g, count) < 0)
            return NULL;
    } else if (append(&s, "%s%s: %s (max abs error %.3g)", s ? "; " : "", name, count,
                      c->max_abs_err) < 0) {
        return NULL;
    }
    return s;
}

/* ---- limits and early exits ---- */

char *explain_end(enum explain_end end, int64_t a, int64_t b)
{
    char *s = NULL;
    int n = -1;

    switch (end) {
    case EXPLAIN_TIME_CPU:
        n = asprintf(&s,
                     "CPU time over the limit of %" PRId64 " ms: an endless loop, or far more "
                     "work than needed (a loop nested once too often?)",
                     a);
        break;
    case EXPLAIN_TIME_WALL:
        n = asprintf(&s,
                     "wall-clock time over the limit of %" PRId64 " ms (sleeping, stopped or "
                     "blocked): the program waited for something that never came",
                     a);
        break;
    case EXPLAIN_NO_MEMORY:
        n = asprintf(&s,
                     "an allocation failed: over the memory limit of %" PRId64 " MiB (a buffer "
                     "sized with the wrong dimensions, or memory allocated in a loop and never "
                     "freed?)",
                     a);
        break;
    case EXPLAIN_IMAGE_TOO_BIG:
        n = asprintf(&s,
                     "the program's static and thread-local data alone need %" PRId64
                     " MiB, over the memory limit of %" PRId64 " MiB",
                     a, b);
        break;
    case EXPLAIN_EXEC_NOMEM:
        n = asprintf(&s,
                     "the program does not fit in the memory limit of %" PRId64
                     " MiB (static arrays too large?)",
                     a);
        break;
    case EXPLAIN_EXIT:
        if (a == 0)
            n = asprintf(&s, "the program exited before your function returned (exit(0) "
                             "called?)");
        else
            n = asprintf(&s,
                         "exit code %" PRId64 " (the program exited before your function "
                         "returned: exit() called?)",
                         a);
        break;
    case EXPLAIN_NO_OUTPUTS:
        n = asprintf(&s, "the outputs never arrived (did your code write to or close "
                         "descriptor 4, the judge's result channel?)");
        break;
    }
    return n < 0 ? NULL : s;
}
