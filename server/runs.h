/*
 * runs — ungraded runs: a student's source judged on a problem's sample
 * tests only (POST /api/runs, GET /api/runs/{id}; docs/api.md).
 *
 * A run goes through judge_submission() like a submission, with
 * samples_only, but it is never stored: runs live in memory, judged by
 * threads of their own, so that they never take a graded submission's
 * worker, and are forgotten a while after their verdict.
 */
#ifndef ATTNJUDGE_SERVER_RUNS_H
#define ATTNJUDGE_SERVER_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "judge/judge.h"
#include "server/catalog.h"
#include "util/compiler.h"

#define RUNS_USER_BUSY 1 /* the user already has a run waiting or running */
#define RUNS_FULL 2      /* queue_max runs are waiting */

/* How long a finished run can be read, and how many of one user's. */
#define RUNS_KEEP_MS (15 * 60 * 1000)
#define RUNS_KEEP_PER_USER 5

struct runs;

/* Starts n run workers that judge runs with judge against the problems of
 * catalog (both borrowed; they must outlive the runs, see runs_stop); at
 * most queue_max runs wait. Returns NULL with a message in err. */
struct runs *runs_start(int n, int queue_max, struct judge_ctx *judge, struct catalog *catalog,
                        char *err, size_t errlen);

/* Queues a run of source (len bytes, copied) by user_id on version of
 * problem slug, created at now_ms. Returns 0 with its id, RUNS_USER_BUSY,
 * RUNS_FULL, or -1 when out of memory or stopping. */
int runs_submit(struct runs *r, int64_t user_id, const char *slug, int version, const char *source,
                size_t len, int64_t now_ms, int64_t *id) MUST_CHECK;

/* The run object of docs/api.md for run id if user_id made it (and it is
 * still kept), at now_ms: a new reference. NULL with *found false when
 * there is no such run of that user, with *found true when out of memory. */
json_t *runs_get(struct runs *r, int64_t id, int64_t user_id, int64_t now_ms, bool *found);

/* Seconds until a run queued now would likely be judged: for Retry-After. */
int runs_wait_s(struct runs *r);

/* Stops taking runs and waits up to grace_s seconds for the runs being
 * judged. Returns the number of workers still judging: when it is not 0
 * they still use judge and catalog, so the caller must not free those.
 * Frees r when 0. */
int runs_stop(struct runs *r, int grace_s);

#endif
