/*
 * cpus — the benchmark core and the judging cores (cpus.h).
 */
#include "server/cpus.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Appends "a-b" or "a" ranges of set to out: "0-2,5". */
static void describe_set(const cpu_set_t *set, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        int n = last > c ? snprintf(out + used, len - used, "%s%d-%d", used ? "," : "", c, last)
                         : snprintf(out + used, len - used, "%s%d", used ? "," : "", c);
        if (n < 0)
            break;
        used += (size_t)n;
        c = last;
    }
}

int cpus_plan(int bench_cpu, const cpu_set_t *allowed, struct cpus_plan *p, char *err,
              size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (allowed)
        p->all = *allowed;
    else if (sched_getaffinity(0, sizeof p->all, &p->all) < 0) {
        snprintf(err, errlen, "bench_cpu: sched_getaffinity: %s", strerror(errno));
        return -1;
    }
    p->judging = p->all;
    int n = CPU_COUNT(&p->all);
    if (bench_cpu == CPUS_BENCH_OFF)
        return 0;
    if (bench_cpu == CPUS_BENCH_AUTO) {
        /* On two cores, one kept for benchmarks would halve the
         * throughput of the verdicts students wait for: there they share. */
        if (n < 3)
            return 0;
        for (int c = CPU_SETSIZE - 1; c >= 0; c--)
            if (CPU_ISSET(c, &p->all)) {
                bench_cpu = c;
                break;
            }
    }
    char cores[128];
    describe_set(&p->all, cores, sizeof cores);
    if (bench_cpu < 0 || bench_cpu >= CPU_SETSIZE || !CPU_ISSET(bench_cpu, &p->all)) {
        snprintf(err, errlen, "bench_cpu: core %d is not one this process may use (cores %s)",
                 bench_cpu, cores);
        return -1;
    }
    if (n < 2) {
        snprintf(err, errlen,
                 "bench_cpu: core %d is the only core (%s): judging would have none; "
                 "set bench_cpu = off",
                 bench_cpu, cores);
        return -1;
    }
    p->pinned = true;
    p->bench_cpu = bench_cpu;
    CPU_CLR(bench_cpu, &p->judging);
    return 0;
}

static int set_thread(const cpu_set_t *set)
{
    int rc = pthread_setaffinity_np(pthread_self(), sizeof *set, set);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

int cpus_enter_judging(const struct cpus_plan *p)
{
    return p->pinned ? set_thread(&p->judging) : 0;
}

int cpus_enter_bench(const struct cpus_plan *p)
{
    if (!p->pinned)
        return 0;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(p->bench_cpu, &one);
    return set_thread(&one);
}

void cpus_describe(const struct cpus_plan *p, char *out, size_t len)
{
    if (!p->pinned) {
        snprintf(out, len, "benchmarks share every core with judging");
        return;
    }
    char judging[128];
    describe_set(&p->judging, judging, sizeof judging);
    snprintf(out, len, "benchmarks on core %d, judging on cores %s", p->bench_cpu, judging);
}
