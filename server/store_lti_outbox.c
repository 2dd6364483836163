/*
 * store_lti_outbox — the scores owed to LMSs (server/lti_outbox_store.h):
 * the graded links and their grades read, the outbox written and claimed.
 *
 * Writes that must see a consistent outbox (queuing a grade, claiming a
 * delivery) run in one writer transaction (store_begin), so two front
 * ends on one PostgreSQL never queue the same grade twice or claim the
 * same delivery.
 */
#include "server/lti_outbox_store.h"

#include <string.h>

#include "server/store_impl.h"

STORE_CALLBACK(link_cb, struct lti_graded_link);

static int link_row(struct db_stmt *st, void *arg)
{
    struct link_cb *c = arg;
    struct lti_graded_link l = {.id = db_column_int64(st, 0),
                                .platform_id = db_column_int64(st, 1),
                                .kind = col_text(st, 2),
                                .slug = col_text(st, 3),
                                .lineitems_url = col_text(st, 4),
                                .lineitem_url = col_text(st, 5),
                                .resource_link_id = col_text(st, 6),
                                .found_url = col_text(st, 7)};
    return c->fn(c->arg, &l);
}

int store_lti_graded_links(struct store *s, int (*fn)(void *arg, const struct lti_graded_link *l),
                           void *arg)
{
    struct link_cb c = {fn, arg};
    return store_each(s, Q_LTI_GRADED_LINKS, "graded links", link_row, &c, "");
}

struct id_cb {
    int (*fn)(void *arg, int64_t user_id);
    void *arg;
};

static int id_row(struct db_stmt *st, void *arg)
{
    struct id_cb *c = arg;
    return c->fn(c->arg, db_column_int64(st, 0));
}

int store_lti_platform_students(struct store *s, int64_t platform_id,
                                int (*fn)(void *arg, int64_t user_id), void *arg)
{
    struct id_cb c = {fn, arg};
    return store_each(s, Q_LTI_PLATFORM_STUDENTS, "platform students", id_row, &c, "i",
                      platform_id);
}

int store_lti_in_flight(struct store *s, const char *slug, bool assignment,
                        int (*fn)(void *arg, int64_t user_id), void *arg)
{
    struct id_cb c = {fn, arg};
    return store_each(s, Q_LTI_IN_FLIGHT, "in flight", id_row, &c, "tt", assignment ? "" : slug,
                      assignment ? slug : "");
}

struct best_cb {
    int (*fn)(void *arg, int64_t user_id, double score);
    void *arg;
};

static int best_row(struct db_stmt *st, void *arg)
{
    struct best_cb *c = arg;
    return c->fn(c->arg, db_column_int64(st, 0), col_real(st, 1));
}

int store_lti_problem_best(struct store *s, const char *slug,
                           int (*fn)(void *arg, int64_t user_id, double score), void *arg)
{
    struct best_cb c = {fn, arg};
    return store_each(s, Q_LTI_PROBLEM_BEST, "best scores", best_row, &c, "t", slug);
}

struct last_cb {
    int (*fn)(void *arg, int64_t user_id, double given, double maximum);
    void *arg;
};

static int link_last_row(struct db_stmt *st, void *arg)
{
    struct last_cb *c = arg;
    return c->fn(c->arg, db_column_int64(st, 0), col_real(st, 1), col_real(st, 2));
}

int store_lti_link_last(struct store *s, int64_t link_id,
                        int (*fn)(void *arg, int64_t user_id, double given, double maximum),
                        void *arg)
{
    struct last_cb c = {fn, arg};
    return store_each(s, Q_LTI_LINK_LAST, "queued grades", link_last_row, &c, "i", link_id);
}

struct last_score {
    int64_t seq, timestamp;
    double given, maximum;
};

static int last_row(struct db_stmt *st, void *arg)
{
    struct last_score *l = arg;
    l->seq = db_column_int64(st, 0);
    l->given = col_real(st, 1);
    l->maximum = col_real(st, 2);
    l->timestamp = db_column_int64(st, 3);
    return 0;
}

int store_lti_grade_put(struct store *s, int64_t link_id, int64_t user_id,
                        const struct lti_grade *g, int64_t now, bool *queued)
{
    struct last_score last = {0};
    *queued = false;
    if (store_begin(s) < 0)
        return -1;
    int rc = store_one(s, Q_LTI_SCORE_LAST, "last score", last_row, &last, "ii", link_id, user_id);
    if (rc < 0)
        goto out;
    bool before = rc == 0;
    double given = isnan(g->given) ? 0 : g->given;
    rc = 0;
    if (isnan(g->given) && !before)
        goto out; /* nothing counts and nothing was ever sent */
    if (before && last.given == given && last.maximum == g->maximum)
        goto out;
    /* AGS orders a user's scores by timestamp: each one after the last */
    int64_t ts = before && last.timestamp >= now ? last.timestamp + 1 : now;
    rc = -1;
    if (store_run(s, Q_LTI_SUPERSEDE, "ii", link_id, user_id) < 0 ||
        store_run(s, Q_LTI_SCORE_INSERT, "iiiddttiii", link_id, user_id, last.seq + 1, given,
                  g->maximum, g->activity, g->grading, ts, now, now) < 0)
        goto out;
    if ((rc = store_commit(s)) == 0)
        *queued = true;
out:
    store_rollback(s);
    return rc;
}

static void copy_to(char *buf, size_t len, struct db_stmt *st, int col)
{
    copy_col(st, col, buf, len);
}

static int delivery_row(struct db_stmt *st, void *arg)
{
    struct lti_delivery *d = arg;
    d->id = db_column_int64(st, 0);
    d->link_id = db_column_int64(st, 1);
    d->platform_id = db_column_int64(st, 2);
    d->seq = db_column_int64(st, 3);
    d->given = col_real(st, 4);
    d->maximum = col_real(st, 5);
    copy_to(d->activity, sizeof d->activity, st, 6);
    copy_to(d->grading, sizeof d->grading, st, 7);
    d->timestamp = db_column_int64(st, 8);
    d->attempts = (int)db_column_int64(st, 9);
    copy_to(d->sub, sizeof d->sub, st, 10);
    copy_to(d->kind, sizeof d->kind, st, 11);
    copy_to(d->slug, sizeof d->slug, st, 12);
    copy_to(d->resource_link_id, sizeof d->resource_link_id, st, 13);
    copy_to(d->lineitems_url, sizeof d->lineitems_url, st, 14);
    copy_to(d->lineitem_url, sizeof d->lineitem_url, st, 15);
    copy_to(d->found_url, sizeof d->found_url, st, 16);
    copy_to(d->client_id, sizeof d->client_id, st, 17);
    copy_to(d->token_url, sizeof d->token_url, st, 18);
    return 0;
}

int store_lti_outbox_claim(struct store *s, const char *holder, int64_t now, int64_t lease_ms,
                           struct lti_delivery *d)
{
    int64_t id = 0;
    memset(d, 0, sizeof *d);
    /* asked every few hundred ms: nothing due (the usual answer) takes no
     * writer's lock */
    int rc = store_one(s, Q_LTI_OUTBOX_NEXT, "outbox", store_int64_row, &id, "i", now);
    if (rc != 0)
        return rc;
    if (store_begin(s) < 0)
        return -1;
    rc = store_one(s, Q_LTI_OUTBOX_NEXT, "outbox", store_int64_row, &id, "i", now);
    if (rc != 0)
        goto out;
    rc = -1;
    if (store_run(s, Q_LTI_OUTBOX_TAKE, "tii", holder, now + lease_ms, id) < 0 ||
        store_one(s, Q_LTI_DELIVERY, "delivery", delivery_row, d, "i", id) != 0)
        goto out;
    rc = store_commit(s);
out:
    store_rollback(s);
    return rc;
}

int store_lti_outbox_end(struct store *s, int64_t id, const char *holder, const char *state,
                         const char *error, int64_t next_try_at, int64_t now)
{
    bool done = !strcmp(state, "delivered");
    if (store_run(s, Q_LTI_OUTBOX_END, "ttiiit", state, error, next_try_at, done ? now : 0, id,
                  holder) < 0)
        return -1;
    return db_changes(s->db) == 1 ? 0 : STORE_STALE;
}

int store_lti_outbox_release(struct store *s)
{
    return store_run(s, Q_LTI_OUTBOX_RELEASE, "");
}

int store_lti_lineitem_set(struct store *s, int64_t link_id, const char *url, double maximum,
                           int64_t now)
{
    return store_run(s, Q_LTI_LINEITEM_SET, "itdi", link_id, url, maximum, now);
}

STORE_CALLBACK(outbox_cb, struct lti_outbox_row);

static int outbox_row(struct db_stmt *st, void *arg)
{
    struct outbox_cb *c = arg;
    struct lti_outbox_row r = {.id = db_column_int64(st, 0),
                               .link_id = db_column_int64(st, 1),
                               .kind = col_text(st, 2),
                               .slug = col_text(st, 3),
                               .user = col_text(st, 4),
                               .seq = db_column_int64(st, 5),
                               .given = col_real(st, 6),
                               .maximum = col_real(st, 7),
                               .timestamp = db_column_int64(st, 8),
                               .state = col_text(st, 9),
                               .attempts = (int)db_column_int64(st, 10),
                               .next_try_at = db_column_int64(st, 11),
                               .last_error = col_text(st, 12),
                               .delivered_at = db_column_int64(st, 13)};
    return c->fn(c->arg, &r);
}

int store_lti_outbox_list(struct store *s, const char *state, int limit,
                          int (*fn)(void *arg, const struct lti_outbox_row *row), void *arg)
{
    struct outbox_cb c = {fn, arg};
    return store_each(s, Q_LTI_OUTBOX_LIST, "outbox", outbox_row, &c, "tI", state ? state : "",
                      limit);
}

struct count_cb {
    int (*fn)(void *arg, const char *state, int64_t n);
    void *arg;
};

static int count_row(struct db_stmt *st, void *arg)
{
    struct count_cb *c = arg;
    return c->fn(c->arg, col_text(st, 0), db_column_int64(st, 1));
}

int store_lti_outbox_counts(struct store *s, int (*fn)(void *arg, const char *state, int64_t n),
                            void *arg)
{
    struct count_cb c = {fn, arg};
    return store_each(s, Q_LTI_OUTBOX_COUNTS, "outbox counts", count_row, &c, "");
}

int store_lti_outbox_retry(struct store *s, int64_t id, int64_t now)
{
    if (store_run(s, Q_LTI_OUTBOX_RETRY, "ii", now, id) < 0)
        return -1;
    return db_changes(s->db) == 1 ? 0 : STORE_NOT_FOUND;
}
