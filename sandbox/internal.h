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

#endif
