/*
 * Declarations shared by the sandbox's own modules; not part of its API.
 *
 * Everything called in the sandbox's child processes (the init and the
 * worker) is async-signal-safe: those processes are made with a raw clone
 * from a possibly multi-threaded judge, so they must not take locks that
 * another thread of the judge might have held (malloc, stdio).
 */
#ifndef ATTNJUDGE_SANDBOX_INTERNAL_H
#define ATTNJUDGE_SANDBOX_INTERNAL_H

#include <linux/filter.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "sandbox/sandbox.h"

/* --- seccomp.c: filters are built once in the judge, loaded in workers --- */

/* The compiled BPF program of the policy's filter, built on first use and
 * immutable afterwards. NULL with err set if libseccomp failed. */
const struct sock_fprog *sbx_seccomp_program(enum sbx_policy policy, char *err, size_t errlen);

/* Loads prog in the calling process (async-signal-safe). With
 * want_listener, returns the user-notification descriptor; otherwise 0.
 * -1 with errno on failure. */
int sbx_seccomp_load(const struct sock_fprog *prog, bool want_listener);

/* Name of syscall nr of the native ABI ("openat"), into buf. */
void sbx_seccomp_name(long nr, char *buf, size_t len);

/* --- namespaces.c --- */

/* clone3() into new user, mount, pid, network, IPC and UTS namespaces.
 * Returns the child's pid in the parent (and a pidfd in *pidfd), 0 in the
 * child, -1 with errno. */
pid_t sbx_clone_sandbox(int *pidfd);

/* A plain fork by raw syscall (no atfork handlers, no locks). */
pid_t sbx_raw_fork(void);

/* Writes the child's uid/gid maps: the sandbox's single user SBX_INNER_ID is
 * the judge's own uid, or nobody (65534) when the judge runs as root.
 * Returns 0 or -1 with errno. */
int sbx_write_id_maps(pid_t child, char *err, size_t errlen);

#define SBX_INNER_ID 1000

/* The program's fixed layout inside an SBX_RUN sandbox. */
#define SBX_RUN_PID 2     /* init is 1; the program its first child */
#define SBX_RUN_EXEC_FD 5 /* the program itself, close-on-exec */

/* --- fsview.c: runs in the init process, before any untrusted code --- */

struct sbx_view_plan {
    /* top-level names that are symlinks on the host ("bin" -> "usr/bin")
     * or directories to bind; computed in the judge by sbx_view_plan() */
    struct {
        char name[16];
        char target[64];
        bool is_link;
        bool present;
    } top[4];
    bool have_ld_cache;
};

/* Inspects the host's / (judge side). */
void sbx_view_plan(struct sbx_view_plan *plan);

/* Builds the policy's root filesystem and pivots into it. On failure
 * returns -1 and sets *what to a static description. */
int sbx_view_enter(enum sbx_policy policy, const struct sbx_limits *lim,
                   const struct sbx_view_plan *plan, const char **what);

/* --- limits.c: runs in the worker --- */

/* Applies the rlimits of lim. -1 and *what on failure. */
int sbx_limits_apply(enum sbx_policy policy, const struct sbx_limits *lim, const char **what);

/* --- init.c: the sandbox's own processes, the init and its workers --- */

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

/* The init (pid 1 of the sandbox): takes its descriptors from plan, waits
 * for the judge's "maps written" byte, becomes the namespace's one user,
 * builds the view, runs each step in a worker, writes its status record
 * to I_STATUS and exits. Async-signal-safe; never returns. */
_Noreturn void sbx_init_main(const struct init_plan *plan);

/* --- live.c: the judge's side, a conversation's handles on the program --- */

struct sbx_live {
    pid_t pid;       /* as the judge sees it; trusted only while pidfd is not readable */
    int pidfd;       /* the program's */
    clockid_t clock; /* the process's CPU clock */
};

/* Finds the program of the sandbox whose init is init and opens its
 * handles. 0, or -1 with errno (ESRCH: no program, or it ended). */
int sbx_live_open(pid_t init, struct sbx_live *live);
void sbx_live_close(struct sbx_live *live);

/* --- result.c: the judge's side, after the init has exited --- */

/* Fills res from the init's status record st (got_status: one was read;
 * timed_out: the judge's wall clock killed the sandbox): the status, the
 * kernel's CPU accounting held against spec's limits, the forbidden
 * system call's name. */
void sbx_fill_result(const struct sbx_spec *spec, const struct init_status *st, bool got_status,
                     bool timed_out, struct sbx_result *res);

#endif
