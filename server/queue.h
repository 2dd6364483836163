/*
 * queue — the judging workers.
 *
 * The queue itself is the submissions table (store.h); this module owns the
 * threads that claim its rows, judge them with judge_submission() and record
 * the verdicts. Each worker has its own database connection.
 */
#ifndef ATTNJUDGE_SERVER_QUEUE_H
#define ATTNJUDGE_SERVER_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/judge.h"
#include "server/metrics.h"
#include "server/catalog.h"
#include "server/judge_host.h"

struct queue;

/* Starts n workers (0: none, a front end only) on the database at db_path
 * and returns once each has opened its connection or given up (logged;
 * see queue_workers_live). Before any claim, the claims of this machine's
 * dead judge processes and every expired lease are handed back to the
 * queue; then a heartbeat records this host and renews its leases, and
 * hands back leases that other hosts let expire. judge, problems and
 * metrics are borrowed and must outlive the queue (see queue_stop).
 * Returns NULL with a message in err. */
struct queue *queue_start(const char *db_path, bool sync_full, int n, struct judge_ctx *judge,
                          struct catalog *catalog, struct metrics *metrics,
                          const struct queue_bench *bench, const struct queue_host *host, char *err,
                          size_t errlen);

/* This process's judge host name: hostname/pid/random. */
const char *queue_host_name(const struct queue *q);

/* Estimated seconds until the verdict of a queued submission at position
 * (1 = claimed next) while `judging` submissions are being judged, from the
 * mean judging time (ms) and the number of workers; -1 when unknown (no
 * mean yet). */
double queue_estimate_s(const struct queue *q, int64_t position, int64_t judging,
                        double mean_judge_ms);

/* The number of workers that judge: started, connected to the database,
 * not exited. */
int queue_workers_live(struct queue *q);

/* Wakes a worker: new submissions were queued. */
void queue_notify(struct queue *q);

/* Stops claiming work and waits up to grace_s seconds for the judgements in
 * progress to be recorded; those still running are put back in the queue
 * (to be judged again after a restart). Returns the number of workers still
 * running: when it is not 0 they still use judge, problems and metrics, so
 * the caller must not free those (it is about to exit). Frees q when 0. */
int queue_stop(struct queue *q, int grace_s);

#endif
