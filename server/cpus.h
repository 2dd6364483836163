/*
 * cpus — which cores benchmarks and judging run on (docs/performance.md,
 * "Interference").
 *
 * A benchmark's figure is CPU time, which another process on the same core
 * does not add to; but it shares that core's caches and, through the
 * scheduler, migrations with whatever runs beside it. On a host with three
 * or more cores the benchmark gets a core of its own: every thread of the
 * process judges, serves and keeps on the other cores, and the one thread
 * benchmarking moves to the benchmark core for the benchmark's length. The
 * sandboxes inherit the affinity of the thread that creates them, and the
 * run filter gives a student no sched_setaffinity, so no verdict's process
 * lands on the benchmark core and no submission leaves it.
 */
#ifndef ATTNJUDGE_SERVER_CPUS_H
#define ATTNJUDGE_SERVER_CPUS_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"

/* The `bench_cpu` setting: a core's number, or one of these. */
#define CPUS_BENCH_AUTO (-1) /* the last allowed core when 3 or more are allowed, else none */
#define CPUS_BENCH_OFF (-2)  /* no pinning: benchmarks and verdicts share every core */

struct cpus_plan {
    bool pinned;       /* false: nothing is ever moved */
    int bench_cpu;     /* the benchmark core, when pinned */
    cpu_set_t all;     /* the cores this process was given */
    cpu_set_t judging; /* all but the benchmark core */
};

/* Resolves `bench_cpu` (a core number, CPUS_BENCH_AUTO or CPUS_BENCH_OFF)
 * against the cores in `allowed` (this process's affinity when NULL).
 * Returns 0, or -1 with err when the setting names a core this process may
 * not use or would leave judging no core. */
int cpus_plan(int bench_cpu, const cpu_set_t *allowed, struct cpus_plan *p, char *err,
              size_t errlen) MUST_CHECK;

/* Moves the calling thread to the judging cores (every core when not
 * pinned); threads it creates afterwards inherit them. Returns 0 or -1
 * with errno. */
int cpus_enter_judging(const struct cpus_plan *p) MUST_CHECK;

/* Moves the calling thread to the benchmark core (nothing when not
 * pinned). Returns 0 or -1 with errno. */
int cpus_enter_bench(const struct cpus_plan *p) MUST_CHECK;

/* "benchmarks on core 3, judging on cores 0-2" or "benchmarks share every
 * core with judging (bench_cpu = off)": the line the server logs. */
void cpus_describe(const struct cpus_plan *p, char *out, size_t len);

#endif
