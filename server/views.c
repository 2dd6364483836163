/*
 * views — the API's response shapes built from the store's rows (views.h).
 *
 * The store reads rows and knows SQL; this module knows what the API
 * answers (docs/api.md): which fields a submission has and when they are
 * null, how a time reads (ISO 8601 UTC, milliseconds), and the grades CSV.
 * A nullable number arrives as NAN and leaves as JSON null; a string that
 * jansson refuses (not UTF-8) makes the whole response fail as out of
 * memory would, never a half-built object.
 */
#include "server/views.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/bench_spread.h"
#include "util/isotime.h"

json_t *views_time(int64_t ms)
{
    char buf[ISOTIME_LEN];
    /* the one writer of the API's times (util/isotime.h) */
    return isotime_format(ms, buf) == 0 ? json_string(buf) : json_null();
}

static json_t *opt_real(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *opt_string(const char *v)
{
    return v ? json_string(v) : json_null();
}

/* A column that holds JSON text (progress): its value, or null. */
static json_t *json_text(const char *v)
{
    json_t *j = v ? json_loads(v, 0, NULL) : NULL;
    return j ? j : json_null();
}

/* A submission's "benchmark" (docs/api.md): null when it has none, else
 * {"status": pending | running | done | failed} and, once measured, the
 * figures (judge/bench.h's report); or, for one that will not run
 * (bench_status NULL), its report as stored: {"status": superseded |
 * skipped, "message", ...} (server/store_queue.c). */
static json_t *benchmark(const struct store_submission_row *row)
{
    if (!row->bench_status) {
        json_t *note = row->bench_report ? json_loads(row->bench_report, 0, NULL) : NULL;
        if (json_is_object(note) && json_is_string(json_object_get(note, "status")))
            return note;
        json_decref(note);
        return json_null();
    }
    json_t *b = row->bench_report ? json_loads(row->bench_report, 0, NULL) : NULL;
    if (!json_is_object(b)) {
        json_decref(b);
        b = json_object();
    }
    if (b)
        json_object_set_new(b, "status", json_string(row->bench_status));
    return b ? b : json_null();
}

json_t *views_submission(const struct store_submission_row *row)
{
    json_t *o = NULL, *report = NULL;
    bool is_done = row->status && !strcmp(row->status, "done");
    /* The stored report supplies verdict, score, compile_log and tests; the
     * server's own columns are set after it so they always win. */
    if (is_done && row->report) {
        json_error_t jerr;
        report = json_loads(row->report, 0, &jerr);
    }
    o = report && json_is_object(report) ? json_incref(report) : json_object();
    if (!o)
        goto fail;
    if (!is_done) {
        if (json_object_set_new(o, "verdict", json_null()) ||
            json_object_set_new(o, "score", json_null()) ||
            json_object_set_new(o, "compile_log", json_null()) ||
            json_object_set_new(o, "tests", json_array()))
            goto fail;
    }
    if (json_object_set_new(o, "id", json_integer(row->id)) ||
        json_object_set_new(o, "problem", opt_string(row->problem)) ||
        json_object_set_new(o, "problem_version", json_integer(row->problem_version)) ||
        json_object_set_new(o, "user", opt_string(row->user)) ||
        json_object_set_new(o, "status", opt_string(row->status)) ||
        json_object_set_new(o, "progress", json_text(row->progress)) ||
        json_object_set_new(o, "time_ms", opt_real(row->time_ms)) ||
        json_object_set_new(o, "compile_ms", opt_real(row->compile_ms)) ||
        json_object_set_new(o, "created_at", views_time(row->created_at)) ||
        json_object_set_new(o, "judged_at", views_time(row->judged_at)) ||
        json_object_set_new(o, "source", opt_string(row->source)) ||
        json_object_set_new(o, "hints_opened", json_integer(row->hints_opened)))
        goto fail;
    if (is_done && (json_object_set_new(o, "verdict", opt_string(row->verdict)) ||
                    json_object_set_new(o, "score", opt_real(row->score))))
        goto fail;
    if (json_object_set_new(o, "benchmark", benchmark(row)))
        goto fail;
    json_decref(report);
    return o;
fail:
    json_decref(o);
    json_decref(report);
    return NULL;
}

int views_add_summary(void *arg, const struct store_submission_row *row)
{
    json_t *o = json_pack(
        "{s:I, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i}", "id", (json_int_t)row->id,
        "problem", opt_string(row->problem), "problem_version", row->problem_version, "user",
        opt_string(row->user), "status", opt_string(row->status), "verdict",
        opt_string(row->verdict), "score", opt_real(row->score), "time_ms", opt_real(row->time_ms),
        "created_at", views_time(row->created_at), "judged_at", views_time(row->judged_at),
        "progress", json_text(row->progress), "hints_opened", row->hints_opened);
    return o && json_array_append_new(arg, o) == 0 ? 0 : -1;
}

/* Ranks go by position, except that an entry whose interval overlaps the
 * interval of its group's first entry (the fastest of the group) shares
 * that entry's rank and both are "tied" (docs/performance.md, "Ties"). */
struct views_leaderboard {
    json_t *entries;
    int position;  /* of the last entry added, 1-based */
    json_t *group; /* the current group's first entry (borrowed), NULL: none open */
    double lo, hi; /* its interval, ms */
};

struct views_leaderboard *views_leaderboard_new(void)
{
    struct views_leaderboard *b = calloc(1, sizeof *b);
    if (b && !(b->entries = json_array())) {
        free(b);
        b = NULL;
    }
    return b;
}

/* A leader's figures per benchmark size: [{"name", "median_ms", "gflops",
 * "peak_fraction"}], or null when not measured. */
static json_t *leader_sizes(const char *report)
{
    json_t *r = report ? json_loads(report, 0, NULL) : NULL, *out = json_array(), *sz;
    size_t i;

    json_array_foreach(json_object_get(r, "sizes"), i, sz)
    {
        json_t *e =
            json_pack("{s:O, s:O, s:O, s:O}", "name", json_object_get(sz, "name"), "median_ms",
                      json_object_get(sz, "median_ms"), "gflops", json_object_get(sz, "gflops"),
                      "peak_fraction", json_object_get(sz, "peak_fraction"));
        if (!e || json_array_append_new(out, e) < 0) {
            json_decref(out);
            out = NULL;
            break;
        }
    }
    json_decref(r);
    if (out && json_array_size(out) == 0) {
        json_decref(out);
        return json_null();
    }
    return out ? out : json_null();
}

/* The rank of the next entry, whose interval is [lo, hi] (has: it has
 * one), and whether it ties with its group. */
static int leader_rank(struct views_leaderboard *b, bool has, double lo, double hi, bool *tied)
{
    b->position++;
    *tied = has && b->group && bench_spread_overlap(b->lo, b->hi, lo, hi);
    if (*tied) {
        json_object_set_new(b->group, "tied", json_true());
        return (int)json_integer_value(json_object_get(b->group, "rank"));
    }
    b->group = NULL;
    b->lo = lo;
    b->hi = hi;
    return b->position;
}

int views_add_leader(void *arg, const struct store_leader_row *row)
{
    struct views_leaderboard *b = arg;
    json_t *report = row->bench_report ? json_loads(row->bench_report, 0, NULL) : NULL;
    double lo = NAN, hi = NAN;
    bool has = !isnan(row->bench_ms) && bench_spread_interval(report, &lo, &hi), tied;
    json_decref(report);
    int rank = leader_rank(b, has, lo, hi, &tied);
    json_t *o = json_pack(
        "{s:i, s:b, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o}", "rank", rank, "tied", tied, "user",
        opt_string(row->user), "display_name", opt_string(row->display_name), "time_ms",
        opt_real(row->time_ms), "submission_id", (json_int_t)row->submission_id, "created_at",
        views_time(row->created_at), "bench_ms", opt_real(row->bench_ms), "bench_interval_ms",
        has ? json_pack("[f, f]", lo, hi) : json_null(), "sizes", leader_sizes(row->bench_report));
    if (!o || json_array_append_new(b->entries, o) < 0)
        return -1;
    if (has && !tied)
        b->group = o; /* borrowed: the array holds it */
    return 0;
}

json_t *views_leaderboard_take(struct views_leaderboard *b, const struct store_problem_version *v)
{
    if (!b)
        return NULL;
    if (!v) {
        json_decref(b->entries);
        free(b);
        return NULL;
    }
    json_t *o = json_pack("{s:s, s:i, s:o}", "problem", v->slug, "version", v->version, "entries",
                          b->entries); /* "o" takes entries even on failure */
    free(b);
    return o;
}

struct views_csv {
    FILE *f;
    char *text;
    size_t len;
    bool failed;
};

/* Appends a CSV field (RFC 4180 quoting when needed). A field that a
 * spreadsheet would run as a formula (starting with =, +, -, @, tab or
 * CR: a display name like "=HYPERLINK(...)") gets a leading apostrophe,
 * which spreadsheets show as text (docs/api.md, "Grades"). */
static void csv_field(struct views_csv *c, const char *v, bool last)
{
    if (!v)
        v = "";
    bool guard = *v && strchr("=+-@\t\r", *v);
    if (strpbrk(v, ",\"\r\n")) {
        c->failed |= fputc('"', c->f) == EOF;
        if (guard)
            c->failed |= fputc('\'', c->f) == EOF;
        for (const char *p = v; *p; p++) {
            if (*p == '"')
                c->failed |= fputc('"', c->f) == EOF;
            c->failed |= fputc(*p, c->f) == EOF;
        }
        c->failed |= fputc('"', c->f) == EOF;
    } else {
        if (guard)
            c->failed |= fputc('\'', c->f) == EOF;
        c->failed |= fputs(v, c->f) == EOF;
    }
    c->failed |= fputs(last ? "\r\n" : ",", c->f) == EOF;
}

int views_roster_add(void *arg, const struct store_student *u)
{
    struct views_roster *r = arg;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        struct views_student *st = realloc(r->st, cap * sizeof *st);
        if (!st)
            return -1;
        r->st = st;
        r->cap = cap;
    }
    size_t a = strlen(u->username) + 1, b = strlen(u->student_id) + 1;
    char *text = malloc(a + b + strlen(u->display_name) + 1);
    if (!text)
        return -1;
    memcpy(text, u->username, a);
    memcpy(text + a, u->student_id, b);
    strcpy(text + a + b, u->display_name);
    r->st[r->n++] = (struct views_student){u->id, text, text + a, text + a + b};
    return 0;
}

void views_roster_free(struct views_roster *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->st[i].username);
    free(r->st);
    memset(r, 0, sizeof *r);
}

void views_score_text(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%.2f", v);
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    char *end = buf + strlen(buf) - 1;
    while (end > dot && *end == '0')
        *end-- = '\0';
    if (end == dot)
        *end = '\0';
}

struct views_csv *views_csv_new(void)
{
    struct views_csv *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (!(c->f = open_memstream(&c->text, &c->len))) {
        free(c);
        return NULL;
    }
    return c;
}

int views_csv_field(struct views_csv *c, const char *v, bool last)
{
    csv_field(c, v, last);
    return c->failed ? -1 : 0;
}

int views_wide_header(struct views_csv *c, const char *const *slugs, size_t n)
{
    csv_field(c, "username", false);
    csv_field(c, "student_id", false);
    csv_field(c, "display_name", false);
    for (size_t k = 0; k < n; k++)
        csv_field(c, slugs[k], false);
    csv_field(c, "total", true);
    return c->failed ? -1 : 0;
}

int views_wide_row(struct views_csv *c, const struct views_student *u, const double *scores,
                   size_t n)
{
    char num[32];
    double total = 0;
    csv_field(c, u->username, false);
    csv_field(c, u->student_id, false);
    csv_field(c, u->display_name, false);
    for (size_t k = 0; k < n; k++) {
        total += scores[k];
        views_score_text(scores[k], num, sizeof num);
        csv_field(c, num, false);
    }
    views_score_text(total, num, sizeof num);
    csv_field(c, num, true);
    return c->failed ? -1 : 0;
}

struct views_csv *views_grades_new(void)
{
    struct views_csv *c = views_csv_new();
    if (!c)
        return NULL;
    csv_field(c, "student", false);
    csv_field(c, "problem", false);
    csv_field(c, "best_score", false);
    csv_field(c, "time_of_best", true);
    return c;
}

int views_add_grade(void *arg, const struct store_grade_row *row)
{
    struct views_csv *c = arg;
    char score[32], when[40] = "";
    snprintf(score, sizeof score, "%.2f", row->best_score);
    json_t *t = views_time(row->created_at);
    if (json_is_string(t))
        snprintf(when, sizeof when, "%s", json_string_value(t));
    json_decref(t);
    csv_field(c, row->user, false);
    csv_field(c, row->problem, false);
    csv_field(c, score, false);
    csv_field(c, when, true);
    return c->failed ? -1 : 0;
}

char *views_grades_take(struct views_csv *c, size_t *len)
{
    char *text = NULL;
    *len = 0;
    if (!c)
        return NULL;
    bool ok = fclose(c->f) == 0 && !c->failed;
    if (ok) {
        text = c->text;
        *len = c->len;
    } else {
        free(c->text);
    }
    free(c);
    return text;
}
