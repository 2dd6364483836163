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
#include <stdint.h>

#include "judge/bench.h"

/* The benchmark phase (docs/performance.md): when enabled, a worker with
 * no verdict to give benchmarks the accepted submission that has waited
 * longest, one at a time across the server. */
struct queue_bench {
    bool enabled;
    int user_max; /* one user's benchmarks waiting at most (user_bench_max) */
    struct bench_options opt;
    struct machine_peak peak;
};

/* This process as a judge host (docs/operations.md, "Judge hosts"). */
struct queue_host {
    int64_t lease_ms; /* a claim's lease; the heartbeat renews it every third of it */
    bool watch;       /* wake on other processes' writes to the database, not
                         only on queue_notify (a worker process of its own) */
};

#endif
