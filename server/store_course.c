/*
 * store_course — the course layer around the judging: progressive hints
 * and walkthroughs, assignments with their windows and late policies, the
 * student list, and each student's editor draft per problem.
 */
#include "server/store_impl.h"

#include <stdlib.h>
#include <string.h>

int store_hint_open(struct store *s, int64_t user_id, const char *slug, int version, int n,
                    int64_t now, int64_t *opened_at, int *opened)
{
    int64_t pid, count = 0;
    int current, rc;
    if (store_begin(s) < 0)
        return -1;
    if ((rc = store_problem_id(s, slug, &pid, &current)) != 0)
        goto out;
    rc = -1;
    if (store_one(s, Q_HINT_COUNT, "hints", store_int64_row, &count, "ii", user_id, pid) != 0)
        goto out;
    *opened = (int)count;
    rc = store_one(s, Q_HINT_GET, "hint", store_int64_row, opened_at, "iiI", user_id, pid, n);
    if (rc != STORE_NOT_FOUND) /* opened before (0): nothing changes */
        goto out;
    /* In order: the rows are 1..count, so only count + 1 is next. */
    if (n != count + 1) {
        rc = STORE_STALE;
        goto out;
    }
    rc = -1;
    if (store_run(s, Q_HINT_INSERT, "iiIii", user_id, pid, n, (int64_t)version, now) < 0)
        goto out;
    *opened_at = now;
    *opened = n;
    rc = store_commit(s);
out:
    store_rollback(s); /* the read-only paths end here; nothing after a commit */
    return rc;
}

STORE_CALLBACK(hint_cb, struct store_hint_row);

static int hint_row(struct db_stmt *st, void *arg)
{
    struct hint_cb *c = arg;
    struct store_hint_row row = {.n = (int)db_column_int64(st, 0),
                                 .problem_version = (int)db_column_int64(st, 1),
                                 .opened_at = db_column_int64(st, 2),
                                 .user = col_text(st, 3)};
    return c->fn(c->arg, &row);
}

int store_hint_opens(struct store *s, const char *slug, int64_t user_id,
                     int (*fn)(void *arg, const struct store_hint_row *row), void *arg)
{
    struct hint_cb c = {fn, arg};
    return store_each(s, Q_HINT_LIST, "hints", hint_row, &c, "ti", slug, user_id);
}

static int walkthrough_row(struct db_stmt *st, void *arg)
{
    struct store_walkthrough *w = arg;
    w->date_set = (int)db_column_int64(st, 0) != 0;
    w->opens_at = db_column_int64(st, 1);
    w->accepted = (int)db_column_int64(st, 2) != 0;
    return 0;
}

int store_walkthrough(struct store *s, const char *slug, int64_t user_id,
                      struct store_walkthrough *w)
{
    return store_one(s, Q_WALK_GET, "walkthrough", walkthrough_row, w, "ti", slug, user_id);
}

int store_walkthrough_set(struct store *s, const char *slug, int64_t opens_at, int64_t by,
                          int64_t now)
{
    int64_t pid;
    int current, rc;
    if ((rc = store_problem_id(s, slug, &pid, &current)) != 0)
        return rc;
    return store_run(s, Q_WALK_SET, "iiii", pid, opens_at, by, now);
}

/* An assignment row: id, slug, title, opens_at, due_at, cutoff_at,
 * penalty_per_day. */
static int assignment_row(struct db_stmt *st, void *arg)
{
    struct store_assignment *a = arg;
    a->id = db_column_int64(st, 0);
    copy_col(st, 1, a->slug, sizeof a->slug);
    copy_col(st, 2, a->title, sizeof a->title);
    a->opens_at = db_column_int64(st, 3);
    a->due_at = db_column_int64(st, 4);
    a->cutoff_at = db_column_int64(st, 5);
    a->penalty_per_day = db_column_double(st, 6);
    return 0;
}

int store_assignment_put(struct store *s, const char *old_slug, const struct store_assignment *a,
                         const char *const *problems, size_t n, int64_t by, int64_t now,
                         char *bad_problem, size_t bad_len)
{
    struct store_assignment cur;
    struct db_stmt *st = NULL;
    int64_t id;
    int rc = -1, r;
    if (store_begin(s) < 0)
        return -1;
    if (old_slug) {
        if ((rc = store_assignment_get(s, old_slug, &cur, NULL, NULL)) != 0)
            goto out;
        rc = -1;
        id = cur.id;
        st = store_prep(s, Q_ASSIGNMENT_UPDATE);
        if (!st || store_bind(s, st, "ttiiidi", a->slug, a->title, a->opens_at, a->due_at,
                              a->cutoff_at, a->penalty_per_day, id) < 0)
            goto out;
    } else {
        st = store_prep(s, Q_ASSIGNMENT_INSERT);
        if (!st || store_bind(s, st, "ttiiidii", a->slug, a->title, a->opens_at, a->due_at,
                              a->cutoff_at, a->penalty_per_day, by, now) < 0)
            goto out;
    }
    r = old_slug ? (db_step(st) == DB_DONE ? 0 : -1) : store_insert_id(st, &id);
    if (r < 0) {
        rc = db_errclass(s->db) == DB_UNIQUE ? STORE_EXISTS : store_fail(s, "assignment");
        goto out;
    }
    store_done(st);
    st = NULL;
    if (store_run(s, Q_ASSIGNMENT_PROBLEMS_CLEAR, "i", id) < 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (store_run(s, Q_ASSIGNMENT_PROBLEM_ADD, "iIt", id, (int)i, problems[i]) < 0)
            goto out;
        if ((int)db_changes(s->db) != 1) {
            snprintf(bad_problem, bad_len, "%s", problems[i]);
            rc = STORE_NOT_FOUND;
            goto out;
        }
    }
    rc = store_commit(s);
out:
    store_done(st);
    if (rc != 0)
        store_rollback(s);
    return rc;
}

int store_assignment_get(struct store *s, const char *slug, struct store_assignment *a,
                         int (*fn)(void *arg, const char *slug), void *arg)
{
    int rc = store_one(s, Q_ASSIGNMENT_GET, "assignment", assignment_row, a, "t", slug);
    if (rc != 0)
        return rc;
    return fn ? store_assignment_problems(s, a->id, fn, arg) : 0;
}

STORE_CALLBACK(slug_cb, char);

static int slug_row(struct db_stmt *st, void *arg)
{
    struct slug_cb *c = arg;
    return c->fn(c->arg, col_text(st, 0));
}

int store_assignment_problems(struct store *s, int64_t id, int (*fn)(void *arg, const char *slug),
                              void *arg)
{
    struct slug_cb c = {fn, arg};
    return store_each(s, Q_ASSIGNMENT_PROBLEMS, "assignment problems", slug_row, &c, "i", id);
}

STORE_CALLBACK(assignment_cb, struct store_assignment);

static int assignments_row(struct db_stmt *st, void *arg)
{
    struct assignment_cb *c = arg;
    struct store_assignment a;
    assignment_row(st, &a);
    return c->fn(c->arg, &a);
}

int store_assignment_list(struct store *s, int (*fn)(void *arg, const struct store_assignment *a),
                          void *arg)
{
    struct assignment_cb c = {fn, arg};
    return store_each(s, Q_ASSIGNMENT_LIST, "assignments", assignments_row, &c, "");
}

int store_assignment_delete(struct store *s, const char *slug)
{
    if (store_run(s, Q_ASSIGNMENT_DELETE, "t", slug) < 0)
        return -1;
    return (int)db_changes(s->db) ? 0 : STORE_NOT_FOUND;
}

STORE_CALLBACK(student_cb, struct store_student);

static int student_row(struct db_stmt *st, void *arg)
{
    struct student_cb *c = arg;
    struct store_student u = {.id = db_column_int64(st, 0),
                              .username = col_text(st, 1),
                              .student_id = col_text(st, 2),
                              .display_name = col_text(st, 3)};
    return c->fn(c->arg, &u);
}

int store_students(struct store *s, int64_t only,
                   int (*fn)(void *arg, const struct store_student *u), void *arg)
{
    struct student_cb c = {fn, arg};
    return store_each(s, Q_STUDENTS, "students", student_row, &c, "i", only);
}

STORE_CALLBACK(window_cb, struct store_window_row);

static int window_row(struct db_stmt *st, void *arg)
{
    struct window_cb *c = arg;
    struct store_window_row row = {.id = db_column_int64(st, 0),
                                   .user_id = db_column_int64(st, 1),
                                   .problem = col_text(st, 2),
                                   .score = col_real(st, 3),
                                   .created_at = db_column_int64(st, 4),
                                   .verdict = col_text(st, 5)};
    return c->fn(c->arg, &row);
}

int store_assignment_submissions(struct store *s, const struct store_assignment *a, int64_t user_id,
                                 int (*fn)(void *arg, const struct store_window_row *row),
                                 void *arg)
{
    struct window_cb c = {fn, arg};
    return store_each(s, Q_ASSIGNMENT_SUBMISSIONS, "assignment submissions", window_row, &c, "iiii",
                      a->id, a->opens_at, a->cutoff_at, user_id);
}

/* A draft row: source (copied), revision, updated_at. */
static int draft_row(struct db_stmt *st, void *arg)
{
    struct store_draft *d = arg;
    size_t n;
    const char *t = col_bytes(st, 0, &n);
    if (!(d->source = malloc(n + 1)))
        return -1;
    memcpy(d->source, t ? t : "", n);
    d->source[n] = '\0';
    d->len = n;
    d->revision = db_column_int64(st, 1);
    d->updated_at = db_column_int64(st, 2);
    return 0;
}

int store_draft_get(struct store *s, int64_t user_id, const char *slug, struct store_draft *d)
{
    memset(d, 0, sizeof *d);
    return store_one(s, Q_DRAFT_GET, "draft", draft_row, d, "it", user_id, slug);
}

int store_draft_put(struct store *s, int64_t user_id, const char *slug, const char *source,
                    size_t len, int64_t seen_revision, int64_t now, int64_t *revision)
{
    int rc = store_one(s, Q_DRAFT_PUT, "draft", store_int64_row, revision, "itbii", user_id, slug,
                       source, len, seen_revision, now);
    /* no row: an unknown problem, or the revision moved on */
    if (rc == STORE_NOT_FOUND)
        return (int)db_changes(s->db) == 0 ? STORE_STALE : store_fail(s, "draft");
    return rc;
}

int store_draft_delete(struct store *s, int64_t user_id, const char *slug)
{
    if (store_run(s, Q_DRAFT_DELETE, "it", user_id, slug) < 0)
        return -1;
    return (int)db_changes(s->db) ? 0 : STORE_NOT_FOUND;
}

void store_draft_free(struct store_draft *d)
{
    free(d->source);
    d->source = NULL;
}
