/*
 * result — what a sandbox's run came to, for the judge: the init's status
 * record read into a verdict-ready sbx_result, and freeing one.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/internal.h"

void sbx_fill_result(const struct sbx_spec *spec, const struct init_status *st, bool got_status,
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

void sbx_result_free(struct sbx_result *res)
{
    free(res->output);
    free(res->result);
    res->output = NULL;
    res->result = NULL;
}
