/*
 * store_problems — the problems and their immutable versions: the
 * catalog's records of each version (its content hash, origin and packed
 * files), the current version, a problem's state (draft, published,
 * archived) and its delete.
 */
#include "server/store_impl.h"

#include <stdlib.h>
#include <string.h>

/* A version row: problem id, slug, version, current version, content hash,
 * origin, state, publish_at, whether it has a package. */
static int version_row(struct db_stmt *st, void *arg)
{
    struct store_problem_version *v = arg;
    v->problem_id = db_column_int64(st, 0);
    copy_col(st, 1, v->slug, sizeof v->slug);
    v->version = (int)db_column_int64(st, 2);
    v->current_version = (int)db_column_int64(st, 3);
    copy_col(st, 4, v->content_hash, sizeof v->content_hash);
    copy_col(st, 5, v->origin, sizeof v->origin);
    copy_col(st, 6, v->state, sizeof v->state);
    v->publish_at = db_column_int64(st, 7);
    v->has_package = db_column_int64(st, 8) != 0;
    return 0;
}

STORE_CALLBACK(versions_cb, struct store_problem_version);

static int versions_row(struct db_stmt *st, void *arg)
{
    struct versions_cb *c = arg;
    struct store_problem_version v;
    version_row(st, &v);
    return c->fn(c->arg, &v);
}

int store_problem_versions(struct store *s,
                           int (*cb)(void *arg, const struct store_problem_version *v), void *arg)
{
    struct versions_cb c = {cb, arg};
    return store_each(s, Q_PROBLEM_VERSIONS, "problem versions", versions_row, &c, "");
}

int store_problem_current(struct store *s, const char *slug, struct store_problem_version *v)
{
    return store_one(s, Q_PROBLEM_CURRENT, "problem", version_row, v, "t", slug);
}

struct problem_id {
    int64_t id;
    int current;
};

static int problem_id_row(struct db_stmt *st, void *arg)
{
    struct problem_id *p = arg;
    p->id = db_column_int64(st, 0);
    p->current = (int)db_column_int64(st, 1);
    return 0;
}

int store_problem_id(struct store *s, const char *slug, int64_t *id, int *current)
{
    struct problem_id p;
    int rc = store_one(s, Q_PROBLEM_BY_SLUG, "problem", problem_id_row, &p, "t", slug);
    if (rc == 0) {
        *id = p.id;
        *current = p.current;
    }
    return rc;
}

int store_problem_add_version(struct store *s, const char *slug, const char *title,
                              const char *content_hash, const char *origin, int64_t created_by,
                              bool create_only, int64_t now, int *version)
{
    int64_t pid;
    int current = 0, rc;
    struct db_stmt *st = NULL;
    rc = store_problem_id(s, slug, &pid, &current);
    if (rc < 0)
        return -1;
    if (rc == 0 && create_only)
        return STORE_EXISTS;
    if (rc == STORE_NOT_FOUND) {
        /* An upload starts as a draft (docs/api.md, "Problem states"); the
         * course's own problems directory is published. */
        const char *state = strcmp(origin, "upload") ? "published" : "draft";
        st = store_prep(s, Q_PROBLEM_INSERT);
        if (!st || store_bind(s, st, "tit", slug, now, state) < 0)
            goto fail;
        if (store_insert_id(st, &pid) < 0) {
            store_fail(s, "insert problem");
            goto fail;
        }
        store_done(st);
        current = 0;
    }
    st = store_prep(s, Q_VERSION_INSERT);
    if (!st || store_bind(s, st, "iIttt", pid, current + 1, title, content_hash, origin) < 0)
        goto fail;
    if ((created_by > 0 ? db_bind_int64(st, 6, created_by) : db_bind_null(st, 6)) < 0 ||
        db_bind_int64(st, 7, now) < 0) {
        store_fail(s, "bind");
        goto fail;
    }
    if (store_step(s, st) < 0)
        goto fail;
    store_done(st);
    if (store_run(s, Q_PROBLEM_SET_CURRENT, "Ii", current + 1, pid) < 0)
        return -1;
    *version = current + 1;
    return 0;
fail:
    store_done(st);
    return -1;
}

int store_problem_set_package(struct store *s, const char *slug, int version, const void *data,
                              size_t len)
{
    if (store_run(s, Q_VERSION_SET_PACKAGE, "BIt", data, len, version, slug) < 0)
        return -1;
    return db_changes(s->db) == 1 ? 0 : STORE_NOT_FOUND;
}

struct package {
    void *data;
    size_t len;
};

/* A package column, copied (with a NUL after it); NULL: none. */
static int package_row(struct db_stmt *st, void *arg)
{
    struct package *p = arg;
    size_t n = 0;
    const void *b = db_column_blob(st, 0, &n);
    if (!b)
        return STORE_NOT_FOUND;
    if (!(p->data = malloc(n + 1)))
        return -1;
    memcpy(p->data, b, n);
    ((char *)p->data)[n] = '\0';
    p->len = n;
    return 0;
}

int store_problem_package(struct store *s, const char *slug, int version, void **data, size_t *len)
{
    struct package p = {NULL, 0};
    int rc = store_one(s, Q_VERSION_PACKAGE, "package", package_row, &p, "tI", slug, version);
    *data = p.data;
    *len = p.len;
    return rc;
}

int store_problem_set_state(struct store *s, const char *slug, const char *state,
                            int64_t publish_at)
{
    return store_one(s, Q_PROBLEM_SET_STATE, "problem state", NULL, NULL, "tit", state, publish_at,
                     slug);
}

/* The statements of a problem's delete, in the order the foreign keys
 * need (store_sql.def). */
static const enum q problem_delete[] = {
    Q_PROBLEM_DELETE_HINTS,    Q_PROBLEM_DELETE_WALKTHROUGH, Q_PROBLEM_DELETE_REJUDGES,
    Q_PROBLEM_DELETE_ASSIGNED, Q_PROBLEM_DELETE_DRAFTS,      Q_PROBLEM_DELETE_VERSIONS,
    Q_PROBLEM_DELETE,
};

int store_problem_delete(struct store *s, const char *slug)
{
    int64_t pid, n = 0;
    int current = 0;
    if (store_begin(s) < 0)
        return -1;
    int rc = store_problem_id(s, slug, &pid, &current);
    if (rc != 0)
        goto out;
    if (store_one(s, Q_PROBLEM_SUBMISSIONS, "count", store_int64_row, &n, "i", pid) != 0) {
        rc = -1;
        goto out;
    }
    if (n > 0) {
        rc = STORE_EXISTS;
        goto out;
    }
    for (size_t i = 0; rc == 0 && i < sizeof problem_delete / sizeof *problem_delete; i++)
        rc = store_run(s, problem_delete[i], "i", pid);
out:
    if (rc == 0)
        return store_commit(s);
    store_rollback(s);
    return rc;
}
