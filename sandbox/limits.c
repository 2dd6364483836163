/*
 * limits — the resource limits of a sandboxed process (the worker sets them
 * on itself just before exec, so they bind the compiler or the program and
 * everything it starts).
 *
 * Each limit and the threat it stops:
 *   RLIMIT_CPU    a busy loop. Soft = hard, so the kernel's answer is
 *                 SIGKILL, which cannot be caught (SIGXCPU at a lower soft
 *                 limit could be ignored). Whole seconds, the limit rounded
 *                 up; the exact ms verdict is taken from the kernel's
 *                 accounting afterwards. Sleeping or stopped programs use
 *                 no CPU: the wall clock (sbx_run) stops them.
 *   RLIMIT_AS     exhausting the machine's memory (address space; see
 *                 docs/sandbox.md for why not a memory cgroup).
 *   RLIMIT_STACK  unbounded recursion growing into other mappings.
 *   RLIMIT_FSIZE  filling the disk (compile: a 16 GiB object file from
 *                 `static char a[1L<<34] = {1};`; run: nothing to write).
 *   RLIMIT_NPROC  fork bombs in the compiler; counted per user namespace,
 *                 i.e. per sandbox. The run filter forbids fork anyway.
 *   RLIMIT_NOFILE descriptor exhaustion.
 *   RLIMIT_CORE   0: no core files with the program's memory.
 *   RLIMIT_MEMLOCK 0: nothing pinned in RAM.
 */
#include <sys/resource.h>

#include "sandbox/internal.h"

static int set(int resource, rlim_t value)
{
    struct rlimit rl = {value, value};
    return setrlimit(resource, &rl);
}

int sbx_limits_apply(enum sbx_policy policy, const struct sbx_limits *lim, const char **what)
{
    rlim_t cpu_s = (rlim_t)((lim->cpu_ms + 999) / 1000);

    *what = "RLIMIT_CPU";
    if (set(RLIMIT_CPU, cpu_s) < 0)
        return -1;
    *what = "RLIMIT_AS";
    if (set(RLIMIT_AS, (rlim_t)lim->memory_bytes) < 0)
        return -1;
    *what = "RLIMIT_STACK";
    if (set(RLIMIT_STACK, (rlim_t)lim->stack_bytes) < 0)
        return -1;
    *what = "RLIMIT_FSIZE";
    if (set(RLIMIT_FSIZE, (rlim_t)lim->fsize_bytes) < 0)
        return -1;
    *what = "RLIMIT_NPROC";
    if (set(RLIMIT_NPROC, (rlim_t)lim->nproc) < 0)
        return -1;
    *what = "RLIMIT_NOFILE";
    if (set(RLIMIT_NOFILE, policy == SBX_RUN ? 16 : 256) < 0)
        return -1;
    *what = "RLIMIT_CORE";
    if (set(RLIMIT_CORE, 0) < 0)
        return -1;
    *what = "RLIMIT_MEMLOCK";
    if (set(RLIMIT_MEMLOCK, 0) < 0)
        return -1;
    return 0;
}

void sbx_limits_default(enum sbx_policy policy, struct sbx_limits *lim)
{
    if (policy == SBX_COMPILE) {
        lim->cpu_ms = 10000;
        lim->wall_ms = 20000;
        lim->memory_bytes = 1LL << 30;
        lim->stack_bytes = 64LL << 20;
        lim->fsize_bytes = 64LL << 20;
        lim->nproc = 32;
        lim->tmpfs_bytes = 128LL << 20;
        lim->output_cap = 64 << 10;
    } else {
        lim->cpu_ms = 2000;
        lim->wall_ms = 6000;
        lim->memory_bytes = 256LL << 20;
        lim->stack_bytes = 8LL << 20;
        lim->fsize_bytes = 0;
        lim->nproc = 1;
        lim->tmpfs_bytes = 0;
        lim->output_cap = 64 << 10;
    }
}
