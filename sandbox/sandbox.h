/*
 * sandbox — run untrusted programs: the compiler on a student's file, and the
 * student's program itself.
 *
 * The library knows nothing of problems, HTTP or SQLite: it takes file
 * descriptors and limits and gives back how the process ended, what it
 * printed and what it wrote on its result channel. Threat model and the
 * reason for every rule: docs/sandbox.md.
 *
 * Thread safety: sbx_run may be called from several threads at once.
 */
#ifndef ATTNJUDGE_SANDBOX_H
#define ATTNJUDGE_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

enum sbx_policy {
    /* The compiler: a read-only view of the toolchain, writable /work and
     * /tmp, a deny-list syscall filter (forbidden calls fail with EPERM). */
    SBX_COMPILE,
    /* A student's program: an empty read-only filesystem, a strict
     * allow-list filter (anything else ends the run as a violation). */
    SBX_RUN,
};

struct sbx_limits {
    int64_t cpu_ms;       /* CPU time per process, ms */
    int64_t wall_ms;      /* wall clock for the whole sandbox, ms */
    int64_t memory_bytes; /* address space per process (RLIMIT_AS), bytes */
    int64_t stack_bytes;  /* RLIMIT_STACK, bytes */
    int64_t fsize_bytes;  /* largest file a process may write, bytes */
    int64_t nproc;        /* processes (per sandbox: its own user namespace) */
    int64_t tmpfs_bytes;  /* SBX_COMPILE: size of /work and of /tmp, bytes */
    size_t output_cap;    /* bytes of stdout+stderr kept; the rest is drained */
};

/* A file placed in /work before an SBX_COMPILE sandbox's first step. */
struct sbx_file {
    const char *name; /* plain file name, no '/' */
    int fd;           /* read from offset 0 to EOF (pread; not moved) */
};

#define SBX_MAX_STEPS 4
#define SBX_MAX_FILES 8
/* Where an SBX_RUN program finds its input and result channel. */
#define SBX_RUN_INPUT_FD 3  /* spec->input_fd */
#define SBX_RUN_RESULT_FD 4 /* the result channel */

/* A running SBX_RUN program, seen from outside its sandbox during a
 * conversation (sbx_spec.converse). It is the sandbox's program and no
 * other process: a pid the kernel reuses after the program ended is never
 * read or written (sandbox/live.c). */
struct sbx_live;

struct sbx_spec {
    enum sbx_policy policy;
    struct sbx_limits limits;

    /* SBX_COMPILE: argv of each step (argv[0] an absolute path inside the
     * view), run in order in /work until one fails. */
    const char *const *steps[SBX_MAX_STEPS];
    int n_steps;
    struct sbx_file files[SBX_MAX_FILES];
    int n_files;
    const char *output_name; /* copied out of /work after the last step */
    int output_fd;           /* ... into this descriptor (e.g. a memfd) */
    int64_t output_max;      /* larger outputs are refused, bytes */

    /* SBX_RUN: the program (a descriptor of an executable, e.g. a memfd
     * opened read-only), its input (becomes fd SBX_RUN_INPUT_FD) and the
     * result channel (fd SBX_RUN_RESULT_FD in the program, kept up to
     * result_cap bytes). */
    int exec_fd;
    int input_fd;
    size_t result_cap;

    /* SBX_RUN, optional: a conversation with the program while it runs
     * (a benchmark's calls, judge/bench_session.c). Called on sbx_run's
     * thread whenever bytes arrive on the result channel, with the bytes
     * not consumed yet and the running program (live: its memory and CPU
     * clock, borrowed for the call). Returns how many leading bytes it
     * consumed: those are not kept in sbx_result.result. Setting *stop
     * kills the program (the result then says SIGKILL). wall_ms bounds
     * each wait for the program: its clock starts again after every
     * call of converse, which may take as long as it needs (even run
     * other sandboxes). */
    size_t (*converse)(void *arg, const unsigned char *result, size_t len,
                       const struct sbx_live *live, bool *stop);
    void *converse_arg;
};

enum sbx_status {
    SBX_EXITED,         /* exit_code is set (compile: of the failing or last step) */
    SBX_SIGNALED,       /* killed by signal `signal` */
    SBX_TIME_CPU,       /* CPU time over cpu_ms */
    SBX_TIME_WALL,      /* wall clock over wall_ms (sleeping, stopped, blocked) */
    SBX_VIOLATION,      /* SBX_RUN: a forbidden system call; syscall_name set */
    SBX_EXEC_FAILED,    /* the program could not start; exec_errno set
                           (ENOMEM: its image does not fit memory_bytes) */
    SBX_OUTPUT_TOO_BIG, /* SBX_COMPILE: output_name larger than output_max */
    SBX_OUTPUT_MISSING, /* SBX_COMPILE: the steps succeeded but output_name is
                           missing or not a regular file (never followed) */
};

struct sbx_result {
    enum sbx_status status;
    int exit_code;
    int signal;
    int exec_errno;
    int step;              /* SBX_COMPILE: index of the last step started */
    long syscall_nr;       /* SBX_VIOLATION; -1 for a foreign ABI */
    char syscall_name[40]; /* SBX_VIOLATION, e.g. "openat" */
    double cpu_ms;         /* user+system CPU of the sandboxed processes */
    double wall_ms;
    /* Where the wall time went (bench figures; 0 when unknown): from the
     * call until the init's view was ready, and each compile step's wall
     * time as the init measured it. */
    double setup_ms;
    double step_wall_ms[SBX_MAX_STEPS];
    long max_rss_kb;
    char *output; /* stdout+stderr, NUL-terminated; free()d by
                     sbx_result_free */
    size_t output_len;
    bool output_truncated;
    unsigned char *result; /* SBX_RUN: bytes written on fd 4 */
    size_t result_len;
    bool result_truncated;
};

/* Fills *limits with conservative defaults for the policy. */
void sbx_limits_default(enum sbx_policy policy, struct sbx_limits *limits);

/* Runs spec in a fresh sandbox and waits for it. Returns 0 with *res filled
 * (whatever the program did), or -1 with err set when the sandbox itself
 * could not be set up: an internal error, never the program's fault.
 * On 0 the caller frees res with sbx_result_free. */
int sbx_run(const struct sbx_spec *spec, struct sbx_result *res, char *err,
            size_t errlen) MUST_CHECK;

void sbx_result_free(struct sbx_result *res);

/* The program's CPU time so far, user and system of all its threads, in
 * ms, from the kernel's scheduler clock of the process (nanoseconds; not
 * readable or settable by the program). 0, or -1 with errno when it has
 * ended (ESRCH). */
int sbx_live_cpu_ms(const struct sbx_live *live, double *ms) MUST_CHECK;

/* Copies len bytes from / to addr in the program's address space (even
 * read-only pages). The pages the copy faults in are the judge's work,
 * not the program's. 0, or -1 with errno: EFAULT or EIO when the range is
 * not mapped (the program's doing), ESRCH when it has ended. */
int sbx_live_read(const struct sbx_live *live, uint64_t addr, void *buf, size_t len) MUST_CHECK;
int sbx_live_write(const struct sbx_live *live, uint64_t addr, const void *buf,
                   size_t len) MUST_CHECK;
/* Writes len copies of byte at addr; as sbx_live_write. */
int sbx_live_fill(const struct sbx_live *live, uint64_t addr, unsigned char byte,
                  size_t len) MUST_CHECK;

/* Checks that this machine can sandbox: user, mount, pid, network, IPC and
 * UTS namespaces, seccomp with user notification, and that a forbidden call
 * is caught. Returns 0, or -1 with an explanation for the operator (there
 * is no weaker fallback mode). */
int sbx_selftest(char *err, size_t errlen) MUST_CHECK;

/* Creates an executable in-memory file holding len bytes of data and
 * returns a read-only descriptor of it (close-on-exec), or -1 with errno. */
int sbx_memfd_from(const char *name, const void *data, size_t len) MUST_CHECK;

/* Creates an empty in-memory file (read-write, close-on-exec) for a
 * sandbox to write into; -1 with errno. */
int sbx_memfd_new(const char *name) MUST_CHECK;

/* Reopens the in-memory file fd read-only (an executable cannot be run
 * while a writable descriptor of it exists) and closes fd. */
int sbx_memfd_seal(int fd) MUST_CHECK;

#endif
