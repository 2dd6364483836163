/*
 * metrics — counters and histograms for GET /metrics (Prometheus text).
 *
 * Updates are lock-free atomics, safe from any thread.
 */
#ifndef ATTNJUDGE_SERVER_METRICS_H
#define ATTNJUDGE_SERVER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct metrics;

struct metrics *metrics_new(void);
void metrics_free(struct metrics *m);

/* One HTTP response sent with this status. */
void metrics_http(struct metrics *m, int status);
/* One verdict recorded (verdict: enum judge_verdict value) after judge_ms of
 * judging and queue_ms from submission to verdict. */
void metrics_judgement(struct metrics *m, int verdict, double judge_ms, double queue_ms);
/* One benchmark recorded after ms of measuring, or answered from the
 * figures of the same source measured before (pooled). */
void metrics_benchmark(struct metrics *m, double ms, bool pooled);
/* This machine's ceilings (judge/machine.h), shown from now on; called
 * once at start-up, before /metrics is served. */
void metrics_machine(struct metrics *m, double fma_gflops, double bandwidth_gbs);
/* Judging threads busy: +1 when a worker starts a judgement, -1 after. */
void metrics_busy(struct metrics *m, int delta);

/* The exposition text (malloc'd) including the given gauges. */
char *metrics_render(struct metrics *m, int64_t queued, int64_t judging, int workers, size_t *len);

/* This process's judging counters (verdicts, and the judging, submit-to-
 * verdict and benchmark histograms) as compact JSON (malloc'd; NULL when
 * out of memory): what a judge host records with its heartbeat. */
char *metrics_judging_json(struct metrics *m);

/* Appends the judge hosts alive to text (metrics_render's, *len bytes; it
 * is freed): hosts, an array of {"name", "workers", "busy", "stats"} (may
 * be NULL; "stats" is a host's metrics_judging_json, parsed, or absent),
 * rendered as gauges and as counters and histograms labelled host="name".
 * Returns the new malloc'd text and its *len, or NULL. */
char *metrics_append_hosts(char *text, size_t *len, const json_t *hosts);

#endif
