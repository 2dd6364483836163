/*
 * judge_host — how this process judges, as one host of the judging pool:
 * whether and how it benchmarks accepted submissions, and the lease of its
 * claims. The settings queue_start() takes (server/queue.h) and the
 * pool's shared state keeps (server/workers.h); a header of its own so
 * that the state the workers and the keeper share needs nothing of the
 * queue's public face.
 */
#ifndef ATTNJUDGE_SERVER_JUDGE_HOST_H
#define ATTNJUDGE_SERVER_JUDGE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/bench.h"
#include "server/config.h"
#include "server/cpus.h"
#include "util/compiler.h"

/* The benchmark phase (docs/performance.md): when enabled, a worker with
 * no verdict to give benchmarks the accepted submission that has waited
 * longest, one at a time across the server. */
struct queue_bench {
    bool enabled;
    int user_max; /* one user's benchmarks waiting at most (user_bench_max) */
    struct bench_options opt;
    struct machine_peak peak;
    struct cpus_plan cpus; /* the benchmark core, if any (cpus.h) */
};

/* The benchmark phase as cfg sets it: its options, the cores (the calling
 * thread, and every thread it creates afterwards, moves to the judging
 * cores) and, when enabled, this machine's ceilings measured on the
 * benchmark core. Call it before any judging or serving thread starts.
 * Returns 0, or -1 with err. */
int queue_bench_init(struct queue_bench *b, const struct config *cfg, char *err,
                     size_t errlen) MUST_CHECK;

/* This process as a judge host (docs/operations.md, "Judge hosts"). */
struct queue_host {
    int64_t lease_ms; /* a claim's lease; the heartbeat renews it every third of it */
    bool watch;       /* wake on other processes' writes to the database, not
                         only on queue_notify (a worker process of its own) */
    /* the counterexample search's budget after passed tests, ms
     * (search_budget_ms; judge/search.h); 0: off */
    int64_t search_budget_ms;
};

#endif
