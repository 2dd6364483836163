/*
 * judge_host — the benchmark phase's settings, built from the
 * configuration the same way by `serve` and by `attnjudge worker`
 * (judge_host.h).
 */
#include "server/judge_host.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int queue_bench_init(struct queue_bench *b, const struct config *cfg, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    b->enabled = cfg->benchmark;
    bench_options_default(&b->opt);
    b->opt.budget_ms = cfg->bench_budget_ms;
    b->user_max = cfg->user_bench_max;
    if (!b->enabled)
        return cpus_plan(CPUS_BENCH_OFF, NULL, &b->cpus, err, errlen);
    if (cpus_plan(cfg->bench_cpu, NULL, &b->cpus, err, errlen) < 0)
        return -1;
    /* the ceilings a benchmark is read against, measured on the core the
     * benchmarks will run on; cached in the data directory per CPU model
     * (judge/machine.h) */
    if (cpus_enter_bench(&b->cpus) < 0) {
        snprintf(err, errlen, "bench_cpu: cannot move to core %d: %s", b->cpus.bench_cpu,
                 strerror(errno));
        return -1;
    }
    char why[256];
    int rc = machine_peak(cfg->data_dir, &b->peak, why, sizeof why);
    if (cpus_enter_judging(&b->cpus) < 0) {
        snprintf(err, errlen, "bench_cpu: cannot move to the judging cores: %s", strerror(errno));
        return -1;
    }
    if (rc < 0)
        snprintf(err, errlen, "machine: %s", why);
    return rc;
}
