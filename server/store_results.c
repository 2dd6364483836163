/*
 * store_results — what the judging recorded, as read back: a submission
 * and the list of submissions, rejudges (what each replaced and found),
 * a submission's earlier judgements, the leaderboard, the grades and the
 * sources an integrity check compares.
 */
#include "server/store_impl.h"

#include <string.h>

struct submission_cb {
    store_submission_fn *fn;
    void *arg;
};

static int submission_row(struct db_stmt *st, void *arg)
{
    struct submission_cb *c = arg;
    /* The text and its size together; the members of an initializer list
     * are evaluated in no fixed order, hence these two first. */
    size_t source_len;
    const char *source = col_bytes(st, 13, &source_len);
    struct store_submission_row row = {
        .id = db_column_int64(st, 0),
        .problem = col_text(st, 1),
        .problem_version = (int)db_column_int64(st, 2),
        .user = col_text(st, 3),
        .status = col_text(st, 4),
        .progress = col_text(st, 5),
        .verdict = col_text(st, 6),
        .score = col_real(st, 7),
        .time_ms = col_real(st, 8),
        .compile_ms = col_real(st, 9),
        .created_at = db_column_int64(st, 10),
        .judged_at = db_column_int64(st, 11),
        .report = col_text(st, 12),
        .source = source,
        .source_len = source_len,
        .user_id = db_column_int64(st, 14),
        .hints_opened = (int)db_column_int64(st, 15),
        .bench_status = col_text(st, 16),
        .bench_report = col_text(st, 17),
    };
    return c->fn(c->arg, &row) < 0 ? -1 : 0; /* stop, or 0 for store_one */
}

int store_submission_get(struct store *s, int64_t id, store_submission_fn *fn, void *arg)
{
    struct submission_cb c = {fn, arg};
    return store_one(s, Q_SUB_GET, "submission", submission_row, &c, "i", id);
}

int store_submission_list(struct store *s, const struct store_list_filter *f,
                          store_submission_fn *fn, void *arg)
{
    /* The filter set varies per request, so this one statement is built and
     * prepared per call; every value is bound, never spliced into the text. */
    char q[1024];
    bool pg = db_backend(s->db) == DB_POSTGRESQL; /* usernames: see store_sql.def */
    struct db_stmt *st = NULL;
    int rc = -1, n = 0, r;
    snprintf(q, sizeof q,
             "SELECT s.id, p.slug, s.problem_version, u.username, s.status, s.verdict, s.score,"
             " s.time_ms, s.created_at, s.judged_at, s.progress, s.user_id, " HINTS_BEFORE
             " FROM submissions s JOIN problems p ON p.id = s.problem_id"
             " JOIN users u ON u.id = s.user_id WHERE TRUE%s%s%s%s%s%s"
             " ORDER BY s.id DESC LIMIT ?",
             f->user_id ? " AND s.user_id = ?" : "", f->slug ? " AND p.slug = ?" : "",
             f->username ? (pg ? " AND lower(u.username) = lower(?)" : " AND u.username = ?") : "",
             f->verdict ? " AND s.verdict = ?" : "", f->status ? " AND s.status = ?" : "",
             f->before_id ? " AND s.id < ?" : "");
    if (!(st = db_prepare(s->db, q))) {
        store_fail(s, "prepare list");
        goto out;
    }
    r = 0;
    if (f->user_id)
        r = db_bind_int64(st, ++n, f->user_id);
    if (r == 0 && f->slug)
        r = db_bind_text(st, ++n, f->slug);
    if (r == 0 && f->username)
        r = db_bind_text(st, ++n, f->username);
    if (r == 0 && f->verdict)
        r = db_bind_text(st, ++n, f->verdict);
    if (r == 0 && f->status)
        r = db_bind_text(st, ++n, f->status);
    if (r == 0 && f->before_id)
        r = db_bind_int64(st, ++n, f->before_id);
    if (r == 0)
        r = db_bind_int64(st, ++n, f->limit);
    if (r != 0) {
        store_fail(s, "bind list");
        goto out;
    }
    while ((r = db_step(st)) == DB_ROW) {
        struct store_submission_row row = {
            .id = db_column_int64(st, 0),
            .problem = col_text(st, 1),
            .problem_version = (int)db_column_int64(st, 2),
            .user = col_text(st, 3),
            .status = col_text(st, 4),
            .verdict = col_text(st, 5),
            .score = col_real(st, 6),
            .time_ms = col_real(st, 7),
            .compile_ms = NAN,
            .created_at = db_column_int64(st, 8),
            .judged_at = db_column_int64(st, 9),
            .progress = col_text(st, 10),
            .user_id = db_column_int64(st, 11),
            .hints_opened = (int)db_column_int64(st, 12),
        };
        if (fn(arg, &row) < 0) {
            store_stopped(s, "list");
            goto out;
        }
    }
    if (r != DB_DONE) {
        store_fail(s, "list");
        goto out;
    }
    rc = 0;
out:
    db_finalize(st);
    return rc;
}

struct sub_problem {
    char slug[80], status[16];
};

static int sub_problem_row(struct db_stmt *st, void *arg)
{
    struct sub_problem *x = arg;
    copy_col(st, 0, x->slug, sizeof x->slug);
    copy_col(st, 1, x->status, sizeof x->status);
    return 0;
}

int store_rejudge(struct store *s, const char *slug, int64_t submission_id, int64_t requested_by,
                  int64_t now, int *count, int64_t *rejudge_id)
{
    int64_t pid, rid;
    int current, rc;
    struct sub_problem sub;
    struct db_stmt *st = NULL;
    bool one = submission_id > 0;
    if (store_begin(s) < 0)
        return -1;
    if (one) {
        rc = store_one(s, Q_SUB_PROBLEM, "rejudge", sub_problem_row, &sub, "i", submission_id);
        if (rc != 0)
            goto out;
        if (strcmp(sub.status, "done")) {
            rc = STORE_STALE;
            goto out;
        }
        slug = sub.slug;
    }
    rc = store_problem_id(s, slug, &pid, &current);
    if (rc != 0)
        goto out;
    rc = -1;
    st = store_prep(s, Q_REJUDGE_RECORD);
    if (!st || store_bind(s, st, "iiii", pid, submission_id, requested_by, now) < 0)
        goto out;
    if (store_insert_id(st, &rid) < 0) {
        store_fail(s, "rejudge");
        goto out;
    }
    store_done(st);
    st = NULL;
    if (store_run(s, one ? Q_REJUDGE_ITEM_ONE : Q_REJUDGE_ITEMS, "ii", rid,
                  one ? submission_id : pid) < 0 ||
        store_run(s, one ? Q_REJUDGE_ONE : Q_REJUDGE, "Iii", current, now,
                  one ? submission_id : pid) < 0)
        goto out;
    *count = (int)db_changes(s->db);
    if (store_run(s, Q_REJUDGE_COUNT, "Ii", *count, rid) < 0)
        goto out;
    if (rejudge_id)
        *rejudge_id = rid;
    rc = store_commit(s);
out:
    store_done(st);
    if (rc != 0)
        store_rollback(s);
    else if (*count > 0)
        store_announce(s);
    return rc;
}

STORE_CALLBACK(leader_cb, struct store_leader_row);

static int leader_row(struct db_stmt *st, void *arg)
{
    struct leader_cb *c = arg;
    struct store_leader_row row = {.user = col_text(st, 0),
                                   .time_ms = col_real(st, 1),
                                   .submission_id = db_column_int64(st, 2),
                                   .created_at = db_column_int64(st, 3),
                                   .display_name = col_text(st, 4),
                                   .bench_ms = col_real(st, 5),
                                   .bench_report = col_text(st, 6)};
    return c->fn(c->arg, &row);
}

int store_leaderboard(struct store *s, const char *slug, int limit, struct store_problem_version *v,
                      int (*fn)(void *arg, const struct store_leader_row *row), void *arg)
{
    struct leader_cb c = {fn, arg};
    int rc = store_problem_current(s, slug, v);
    if (rc != 0)
        return rc;
    return store_each(s, Q_LEADERBOARD, "leaderboard", leader_row, &c, "iII", v->problem_id,
                      v->version, limit);
}

STORE_CALLBACK(grade_cb, struct store_grade_row);

static int grade_row(struct db_stmt *st, void *arg)
{
    struct grade_cb *c = arg;
    struct store_grade_row row = {.user = col_text(st, 0),
                                  .problem = col_text(st, 1),
                                  .best_score = db_column_double(st, 2),
                                  .created_at = db_column_int64(st, 3)};
    return c->fn(c->arg, &row);
}

int store_grades(struct store *s, int (*fn)(void *arg, const struct store_grade_row *row),
                 void *arg)
{
    struct grade_cb c = {fn, arg};
    return store_each(s, Q_GRADES, "grades", grade_row, &c, "");
}

/* A rejudge row: id, slug, submission id, requested by, at, count. */
static int rejudge_row(struct db_stmt *st, void *arg)
{
    struct store_rejudge *r = arg;
    r->id = db_column_int64(st, 0);
    copy_col(st, 1, r->slug, sizeof r->slug);
    r->submission_id = db_column_int64(st, 2);
    copy_col(st, 3, r->requested_by, sizeof r->requested_by);
    r->requested_at = db_column_int64(st, 4);
    r->count = (int)db_column_int64(st, 5);
    return 0;
}

/* The judgement columns from col on: status, verdict, score, version. */
static void read_judgement(struct db_stmt *st, int col, struct store_judgement *j)
{
    copy_col(st, col, j->status, sizeof j->status);
    copy_col(st, col + 1, j->verdict, sizeof j->verdict);
    j->score = col_real(st, col + 2);
    j->version = (int)db_column_int64(st, col + 3);
}

STORE_CALLBACK(item_cb, struct store_rejudge_item);

static int item_row(struct db_stmt *st, void *arg)
{
    struct item_cb *c = arg;
    struct store_rejudge_item it;
    it.submission_id = db_column_int64(st, 0);
    copy_col(st, 1, it.username, sizeof it.username);
    read_judgement(st, 2, &it.before);
    read_judgement(st, 6, &it.after);
    it.superseded_by = db_column_int64(st, 10);
    return c->fn(c->arg, &it);
}

int store_rejudge_get(struct store *s, int64_t id, struct store_rejudge *head,
                      int (*fn)(void *arg, const struct store_rejudge_item *item), void *arg)
{
    struct item_cb c = {fn, arg};
    int rc = store_one(s, Q_REJUDGE_HEAD, "rejudge", rejudge_row, head, "i", id);
    if (rc != 0)
        return rc;
    return store_each(s, Q_REJUDGE_REPORT, "rejudge report", item_row, &c, "i", id);
}

STORE_CALLBACK(rejudges_cb, struct store_rejudge);

static int rejudges_row(struct db_stmt *st, void *arg)
{
    struct rejudges_cb *c = arg;
    struct store_rejudge x;
    rejudge_row(st, &x);
    return c->fn(c->arg, &x);
}

int store_rejudge_list(struct store *s, int limit,
                       int (*fn)(void *arg, const struct store_rejudge *r), void *arg)
{
    struct rejudges_cb c = {fn, arg};
    return store_each(s, Q_REJUDGE_LIST, "rejudges", rejudges_row, &c, "I", limit);
}

STORE_CALLBACK(history_cb, struct store_history_row);

static int history_row(struct db_stmt *st, void *arg)
{
    struct history_cb *c = arg;
    struct store_history_row h;
    h.rejudge_id = db_column_int64(st, 0);
    h.replaced_at = db_column_int64(st, 1);
    read_judgement(st, 2, &h.was);
    h.time_ms = col_real(st, 6);
    h.judged_at = db_column_int64(st, 7);
    return c->fn(c->arg, &h);
}

int store_submission_history(struct store *s, int64_t id,
                             int (*fn)(void *arg, const struct store_history_row *row), void *arg)
{
    struct history_cb c = {fn, arg};
    return store_each(s, Q_SUB_HISTORY, "history", history_row, &c, "i", id);
}

STORE_CALLBACK(source_cb, struct store_source_row);

static int source_row(struct db_stmt *st, void *arg)
{
    struct source_cb *c = arg;
    size_t len;
    const char *source = col_bytes(st, 4, &len);
    struct store_source_row row = {.user = col_text(st, 0),
                                   .submission_id = db_column_int64(st, 1),
                                   .verdict = col_text(st, 2),
                                   .created_at = db_column_int64(st, 3),
                                   .source = source,
                                   .len = len};
    return c->fn(c->arg, &row);
}

int store_problem_sources(struct store *s, const char *slug,
                          int (*fn)(void *arg, const struct store_source_row *row), void *arg)
{
    struct source_cb c = {fn, arg};
    return store_each(s, Q_PROBLEM_SOURCES, "sources", source_row, &c, "t", slug);
}
