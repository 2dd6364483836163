/*
 * metrics — the counters and histograms of /metrics, lock-free
 * (metrics.h).
 *
 * Plain counters in one struct, updated with relaxed atomics from HTTP and
 * worker threads; a scrape reads them without stopping anyone (a scrape may
 * see a histogram bucket and its _count a few increments apart, which
 * Prometheus tolerates). Queue depth is not counted here but read from the
 * database at scrape time, so it cannot drift from the truth.
 */
#include "server/metrics.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "judge/judge.h"

#define N_VERDICTS (V_INTERNAL_ERROR + 1)
#define N_BUCKETS 12

/* Upper bounds in seconds; judgements take from ~0.1 s to tens of seconds. */
static const double bounds[N_BUCKETS] = {0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120};

struct histogram {
    atomic_uint_fast64_t bucket[N_BUCKETS]; /* non-cumulative */
    atomic_uint_fast64_t count;
    atomic_uint_fast64_t sum_us; /* microseconds */
};

struct metrics {
    atomic_uint_fast64_t http[600]; /* by status code */
    atomic_uint_fast64_t verdicts[N_VERDICTS];
    atomic_int busy;
    struct histogram judge, queue, bench;
    atomic_uint_fast64_t bench_pooled;
    /* this machine's ceilings (judge/machine.h), set once at start-up */
    double fma_gflops, bandwidth_gbs;
};

struct metrics *metrics_new(void)
{
    return calloc(1, sizeof(struct metrics));
}

void metrics_free(struct metrics *m)
{
    free(m);
}

void metrics_http(struct metrics *m, int status)
{
    if (status >= 100 && status < 600)
        atomic_fetch_add_explicit(&m->http[status], 1, memory_order_relaxed);
}

static void observe(struct histogram *h, double ms)
{
    double s = ms / 1000.0;
    int i = 0;
    while (i < N_BUCKETS && s > bounds[i])
        i++;
    if (i < N_BUCKETS)
        atomic_fetch_add_explicit(&h->bucket[i], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->sum_us, (uint_fast64_t)(ms > 0 ? ms * 1000.0 : 0),
                              memory_order_relaxed);
}

void metrics_judgement(struct metrics *m, int verdict, double judge_ms, double queue_ms)
{
    if (verdict >= 0 && verdict < N_VERDICTS)
        atomic_fetch_add_explicit(&m->verdicts[verdict], 1, memory_order_relaxed);
    observe(&m->judge, judge_ms);
    observe(&m->queue, queue_ms);
}

void metrics_benchmark(struct metrics *m, double ms, bool pooled)
{
    if (pooled)
        atomic_fetch_add_explicit(&m->bench_pooled, 1, memory_order_relaxed);
    else
        observe(&m->bench, ms);
}

void metrics_machine(struct metrics *m, double fma_gflops, double bandwidth_gbs)
{
    m->fma_gflops = fma_gflops;
    m->bandwidth_gbs = bandwidth_gbs;
}

void metrics_busy(struct metrics *m, int delta)
{
    atomic_fetch_add_explicit(&m->busy, delta, memory_order_relaxed);
}

static void render_histogram(FILE *f, const char *name, const char *help, struct histogram *h)
{
    uint64_t cum = 0;
    fprintf(f, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
    for (int i = 0; i < N_BUCKETS; i++) {
        cum += atomic_load_explicit(&h->bucket[i], memory_order_relaxed);
        fprintf(f, "%s_bucket{le=\"%g\"} %llu\n", name, bounds[i], (unsigned long long)cum);
    }
    uint64_t count = atomic_load_explicit(&h->count, memory_order_relaxed);
    fprintf(f, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)count);
    fprintf(f, "%s_sum %.6f\n", name,
            (double)atomic_load_explicit(&h->sum_us, memory_order_relaxed) / 1e6);
    fprintf(f, "%s_count %llu\n", name, (unsigned long long)count);
}

char *metrics_render(struct metrics *m, int64_t queued, int64_t judging, int workers, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    fprintf(f,
            "# HELP attnjudge_queue_depth Submissions waiting to be judged.\n"
            "# TYPE attnjudge_queue_depth gauge\nattnjudge_queue_depth %lld\n",
            (long long)queued);
    fprintf(f,
            "# HELP attnjudge_judging Submissions being judged now.\n"
            "# TYPE attnjudge_judging gauge\nattnjudge_judging %lld\n",
            (long long)judging);
    fprintf(f,
            "# HELP attnjudge_workers Judging threads running (connected to the database).\n"
            "# TYPE attnjudge_workers gauge\nattnjudge_workers %d\n",
            workers);
    fprintf(f,
            "# HELP attnjudge_workers_busy Judging threads busy now.\n"
            "# TYPE attnjudge_workers_busy gauge\nattnjudge_workers_busy %d\n",
            atomic_load_explicit(&m->busy, memory_order_relaxed));
    fprintf(f, "# HELP attnjudge_judgements_total Verdicts recorded, by verdict.\n"
               "# TYPE attnjudge_judgements_total counter\n");
    for (int v = 0; v < N_VERDICTS; v++)
        fprintf(f, "attnjudge_judgements_total{verdict=\"%s\"} %llu\n",
                judge_verdict_name((enum judge_verdict)v),
                (unsigned long long)atomic_load_explicit(&m->verdicts[v], memory_order_relaxed));
    render_histogram(f, "attnjudge_judge_seconds", "Time to judge one submission.", &m->judge);
    render_histogram(f, "attnjudge_submit_to_verdict_seconds",
                     "Time from submission to recorded verdict.", &m->queue);
    render_histogram(f, "attnjudge_benchmark_seconds", "Time to benchmark one accepted submission.",
                     &m->bench);
    fprintf(f,
            "# HELP attnjudge_benchmarks_pooled_total Benchmarks answered with the figures of the"
            " same source measured before.\n"
            "# TYPE attnjudge_benchmarks_pooled_total counter\n"
            "attnjudge_benchmarks_pooled_total %llu\n",
            (unsigned long long)atomic_load_explicit(&m->bench_pooled, memory_order_relaxed));
    if (m->fma_gflops > 0)
        fprintf(f,
                "# HELP attnjudge_machine_fma_gflops Single-core FP32 FMA peak, measured at"
                " start-up.\n"
                "# TYPE attnjudge_machine_fma_gflops gauge\nattnjudge_machine_fma_gflops %.3f\n"
                "# HELP attnjudge_machine_bandwidth_gbs Single-core memory bandwidth (triad),"
                " measured at start-up.\n"
                "# TYPE attnjudge_machine_bandwidth_gbs gauge\n"
                "attnjudge_machine_bandwidth_gbs %.3f\n",
                m->fma_gflops, m->bandwidth_gbs);
    fprintf(f, "# HELP attnjudge_http_requests_total HTTP responses, by status.\n"
               "# TYPE attnjudge_http_requests_total counter\n");
    for (int s = 100; s < 600; s++) {
        uint64_t n = atomic_load_explicit(&m->http[s], memory_order_relaxed);
        if (n)
            fprintf(f, "attnjudge_http_requests_total{status=\"%d\"} %llu\n", s,
                    (unsigned long long)n);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- the judging counters of every judge host ---- */

/* A histogram as [bucket 0 .. bucket N-1 (non-cumulative), count, sum_us]. */
static json_t *histogram_json(struct histogram *h)
{
    json_t *a = json_array();
    for (int i = 0; i < N_BUCKETS; i++)
        json_array_append_new(
            a, json_integer((json_int_t)atomic_load_explicit(&h->bucket[i], memory_order_relaxed)));
    json_array_append_new(
        a, json_integer((json_int_t)atomic_load_explicit(&h->count, memory_order_relaxed)));
    json_array_append_new(
        a, json_integer((json_int_t)atomic_load_explicit(&h->sum_us, memory_order_relaxed)));
    return a;
}

char *metrics_judging_json(struct metrics *m)
{
    json_t *v = json_object();
    /* every verdict, zeros too: a counter exists before its first count */
    for (int i = 0; i < N_VERDICTS; i++)
        json_object_set_new(
            v, judge_verdict_name((enum judge_verdict)i),
            json_integer((json_int_t)atomic_load_explicit(&m->verdicts[i], memory_order_relaxed)));
    json_t *o = json_pack("{s:o, s:o, s:o, s:o}", "verdicts", v, "judge", histogram_json(&m->judge),
                          "queue", histogram_json(&m->queue), "bench", histogram_json(&m->bench));
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

/* A Prometheus label value: backslash and double quote escaped (host names
 * come from gethostname, which a container may set to anything). */
static void label(FILE *f, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fputc('\\', f);
        if (*v == '\n')
            fputs("\\n", f);
        else
            fputc(*v, f);
    }
}

/* attnjudge_judge_host_judgements_total{host, verdict} from each host's
 * "stats" (metrics_judging_json) */
static void render_host_verdicts(FILE *f, const json_t *hosts)
{
    size_t i;
    json_t *h;
    fprintf(f, "# HELP attnjudge_judge_host_judgements_total Verdicts recorded by each judge"
               " host since it started (as of its last heartbeat), by verdict.\n"
               "# TYPE attnjudge_judge_host_judgements_total counter\n");
    json_array_foreach(hosts, i, h)
    {
        const char *verdict;
        json_t *n;
        json_object_foreach(json_object_get(json_object_get(h, "stats"), "verdicts"), verdict, n)
        {
            fputs("attnjudge_judge_host_judgements_total{host=\"", f);
            label(f, json_string_value(json_object_get(h, "name")));
            fputs("\",verdict=\"", f);
            label(f, verdict);
            fprintf(f, "\"} %lld\n", (long long)json_integer_value(n));
        }
    }
}

/* One histogram (key of "stats") of every host, labelled with its name. */
static void render_host_histogram(FILE *f, const json_t *hosts, const char *key, const char *name,
                                  const char *help)
{
    size_t i;
    json_t *h;
    fprintf(f, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
    json_array_foreach(hosts, i, h)
    {
        const json_t *a = json_object_get(json_object_get(h, "stats"), key);
        const char *host = json_string_value(json_object_get(h, "name"));
        if (json_array_size(a) != N_BUCKETS + 2 || !host)
            continue; /* no counters from this host (yet) */
        long long cum = 0, count = json_integer_value(json_array_get(a, N_BUCKETS));
        for (int b = 0; b <= N_BUCKETS; b++) {
            fprintf(f, "%s_bucket{host=\"", name);
            label(f, host);
            if (b < N_BUCKETS) {
                cum += json_integer_value(json_array_get(a, (size_t)b));
                fprintf(f, "\",le=\"%g\"} %lld\n", bounds[b], cum);
            } else {
                fprintf(f, "\",le=\"+Inf\"} %lld\n", count);
            }
        }
        fprintf(f, "%s_sum{host=\"", name);
        label(f, host);
        fprintf(f, "\"} %.6f\n%s_count{host=\"",
                json_integer_value(json_array_get(a, N_BUCKETS + 1)) / 1e6, name);
        label(f, host);
        fprintf(f, "\"} %lld\n", count);
    }
}

char *metrics_append_hosts(char *text, size_t *len, const json_t *hosts)
{
    char *buf = NULL;
    size_t n = 0, i;
    json_t *h;
    FILE *f = open_memstream(&buf, &n);
    if (!f) {
        free(text);
        return NULL;
    }
    fwrite(text, 1, *len, f);
    free(text);
    fprintf(f,
            "# HELP attnjudge_judge_hosts Judge hosts whose last heartbeat is within a lease.\n"
            "# TYPE attnjudge_judge_hosts gauge\nattnjudge_judge_hosts %zu\n",
            hosts ? json_array_size(hosts) : 0);
    fprintf(f, "# HELP attnjudge_judge_host_workers Judging threads of each judge host alive.\n"
               "# TYPE attnjudge_judge_host_workers gauge\n");
    json_array_foreach(hosts, i, h)
    {
        fputs("attnjudge_judge_host_workers{host=\"", f);
        label(f, json_string_value(json_object_get(h, "name")));
        fprintf(f, "\"} %lld\n", (long long)json_integer_value(json_object_get(h, "workers")));
    }
    fprintf(f, "# HELP attnjudge_judge_host_busy Judging threads of each judge host busy now.\n"
               "# TYPE attnjudge_judge_host_busy gauge\n");
    json_array_foreach(hosts, i, h)
    {
        fputs("attnjudge_judge_host_busy{host=\"", f);
        label(f, json_string_value(json_object_get(h, "name")));
        fprintf(f, "\"} %lld\n", (long long)json_integer_value(json_object_get(h, "busy")));
    }
    render_host_verdicts(f, hosts);
    render_host_histogram(f, hosts, "judge", "attnjudge_judge_host_judge_seconds",
                          "Time to judge one submission, by judge host.");
    render_host_histogram(f, hosts, "queue", "attnjudge_judge_host_submit_to_verdict_seconds",
                          "Time from submission to recorded verdict, by judge host.");
    render_host_histogram(f, hosts, "bench", "attnjudge_judge_host_benchmark_seconds",
                          "Time to benchmark one accepted submission, by judge host.");
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}
