/*
 * lti_store — the LTI 1.3 tables (migration 15) behind lti_store.h:
 * platforms with their deployments, the logins in flight, the users an
 * (issuer, sub) stands for, the courses each platform owns, and the
 * resource links. Statements: store_sql.def's lti_store.c section.
 */
#include "server/lti_store.h"

#include <string.h>

#include "server/store_impl.h"

static bool fits(const char *v, size_t len)
{
    return !v || strlen(v) < len;
}

static int platform_row(struct db_stmt *st, void *arg)
{
    struct lti_platform *p = arg;
    p->id = db_column_int64(st, 0);
    copy_col(st, 1, p->issuer, sizeof p->issuer);
    copy_col(st, 2, p->client_id, sizeof p->client_id);
    copy_col(st, 3, p->auth_url, sizeof p->auth_url);
    copy_col(st, 4, p->token_url, sizeof p->token_url);
    copy_col(st, 5, p->jwks_url, sizeof p->jwks_url);
    copy_col(st, 6, p->frame_origins, sizeof p->frame_origins);
    p->created_at = db_column_int64(st, 7);
    return 0;
}

int lti_store_platform_add(struct store *s, const struct lti_platform *p,
                           const char *const *deployments, size_t n, int64_t now, int64_t *id)
{
    struct db_stmt *st = NULL;
    int rc = -1;
    for (size_t i = 0; i < n; i++)
        if (!fits(deployments[i], LTI_ID_LEN))
            return STORE_FULL;
    if (store_begin(s) < 0)
        return -1;
    if (!(st = store_prep(s, Q_LTI_PLATFORM_INSERT)) ||
        store_bind(s, st, "tttttti", p->issuer, p->client_id, p->auth_url, p->token_url,
                   p->jwks_url, p->frame_origins, now) < 0)
        goto out;
    int64_t new_id;
    if (store_insert_id(st, &new_id) < 0) {
        rc = db_errclass(s->db) == DB_UNIQUE ? STORE_EXISTS : store_fail(s, "insert platform");
        goto out;
    }
    store_done(st);
    st = NULL;
    for (size_t i = 0; i < n; i++)
        if (store_run(s, Q_LTI_DEPLOYMENT_INSERT, "it", new_id, deployments[i]) < 0)
            goto out;
    if ((rc = store_commit(s)) == 0 && id)
        *id = new_id;
out:
    store_done(st);
    store_rollback(s); /* nothing after a commit */
    return rc;
}

int lti_store_platform_remove(struct store *s, int64_t id)
{
    static const enum q deletes[] = {Q_LTI_PLATFORM_DELETE_ROWS, Q_LTI_PLATFORM_DELETE_CONTEXTS,
                                     Q_LTI_PLATFORM_DELETE_NONCES,
                                     Q_LTI_PLATFORM_DELETE_DEPLOYMENTS};
    int rc = -1;
    if (store_begin(s) < 0)
        return -1;
    for (size_t i = 0; i < sizeof deletes / sizeof deletes[0]; i++)
        if (store_run(s, deletes[i], "i", id) < 0)
            goto out;
    if (store_run(s, Q_LTI_PLATFORM_DELETE, "i", id) < 0)
        goto out;
    rc = db_changes(s->db) == 0 ? STORE_NOT_FOUND : store_commit(s);
out:
    store_rollback(s);
    return rc;
}

int lti_store_platform_get(struct store *s, int64_t id, struct lti_platform *p)
{
    return store_one(s, Q_LTI_PLATFORM_GET, "platform", platform_row, p, "i", id);
}

/* Counts the rows and keeps the first. */
struct find_acc {
    struct lti_platform *p;
    int n;
};

static int find_row(struct db_stmt *st, void *arg)
{
    struct find_acc *f = arg;
    if (f->n++ == 0)
        return platform_row(st, f->p);
    return 0;
}

int lti_store_platform_find(struct store *s, const char *issuer, const char *client_id,
                            struct lti_platform *p)
{
    struct find_acc f = {p, 0};
    if (store_each(s, Q_LTI_PLATFORM_FIND, "platform", find_row, &f, "tt", issuer,
                   client_id ? client_id : "") < 0)
        return -1;
    return f.n == 0 ? STORE_NOT_FOUND : f.n > 1 ? STORE_EXISTS : 0;
}

struct platforms_cb {
    int (*fn)(void *arg, const struct lti_platform *p, const char *deployments);
    void *arg;
};

static int platforms_row(struct db_stmt *st, void *arg)
{
    struct platforms_cb *c = arg;
    struct lti_platform p;
    platform_row(st, &p);
    const char *d = col_text(st, 8);
    return c->fn(c->arg, &p, d ? d : "") ? -1 : 0;
}

int lti_store_platforms(struct store *s,
                        int (*fn)(void *arg, const struct lti_platform *p, const char *deployments),
                        void *arg)
{
    struct platforms_cb c = {fn, arg};
    return store_each(s, Q_LTI_PLATFORM_LIST, "platforms", platforms_row, &c, "");
}

int lti_store_deployment_known(struct store *s, int64_t platform_id, const char *deployment_id)
{
    return store_one(s, Q_LTI_DEPLOYMENT_GET, "deployment", NULL, NULL, "it", platform_id,
                     deployment_id);
}

int lti_store_login_begin(struct store *s, int64_t platform_id, const char *nonce,
                          const char *state_hash, int64_t expires_at, int64_t now)
{
    if (store_run(s, Q_LTI_NONCE_PURGE, "i", now) < 0)
        return -1;
    return store_run(s, Q_LTI_NONCE_INSERT, "itti", platform_id, nonce, state_hash, expires_at);
}

struct login_row {
    char state_hash[128];
    int64_t expires_at;
    bool spent;
};

static int login_read(struct db_stmt *st, void *arg)
{
    struct login_row *l = arg;
    copy_col(st, 0, l->state_hash, sizeof l->state_hash);
    l->expires_at = db_column_int64(st, 1);
    l->spent = db_column_int64(st, 2) != 0;
    return 0;
}

int lti_store_login_spend(struct store *s, int64_t platform_id, const char *nonce,
                          const char *state_hash, int64_t now)
{
    struct login_row l;
    int rc = store_one(s, Q_LTI_NONCE_GET, "login", login_read, &l, "it", platform_id, nonce);
    if (rc != 0)
        return rc;
    /* the hashes are of random values the server drew: no timing to hide */
    if (strcmp(l.state_hash, state_hash) || l.expires_at <= now)
        return STORE_NOT_FOUND;
    if (l.spent)
        return STORE_STALE;
    if (store_run(s, Q_LTI_NONCE_SPEND, "iti", platform_id, nonce, now) < 0)
        return -1;
    return db_changes(s->db) == 1 ? 0 : STORE_STALE;
}

int lti_store_user_find(struct store *s, const char *issuer, const char *sub, struct store_user *u)
{
    return store_one(s, Q_LTI_USER_FIND, "lti user", store_user_row, u, "tt", issuer, sub);
}

int lti_store_user_create(struct store *s, const char *issuer, const char *sub,
                          const char *username, const char *pwhash, const char *role,
                          const char *display_name, const char *student_id, int64_t now,
                          int64_t *id)
{
    struct db_stmt *st = NULL;
    int rc = -1;
    if (store_begin(s) < 0)
        return -1;
    if (!(st = store_prep(s, Q_LTI_USER_INSERT)) ||
        store_bind(s, st, "tttitt", username, pwhash, role, now, display_name, student_id) < 0)
        goto out;
    int64_t new_id;
    if (store_insert_id(st, &new_id) < 0) {
        rc = db_errclass(s->db) == DB_UNIQUE ? STORE_EXISTS : store_fail(s, "insert lti user");
        goto out;
    }
    store_done(st);
    st = NULL;
    if (store_run(s, Q_LTI_USER_LINK, "ttii", issuer, sub, new_id, now) < 0) {
        rc = db_errclass(s->db) == DB_UNIQUE ? STORE_EXISTS : -1;
        goto out;
    }
    if ((rc = store_commit(s)) == 0 && id)
        *id = new_id;
out:
    store_done(st);
    store_rollback(s);
    return rc;
}

int lti_store_user_update(struct store *s, int64_t user_id, const char *role,
                          const char *display_name, const char *student_id)
{
    return store_run(s, Q_LTI_USER_UPDATE, "ittt", user_id, role, display_name, student_id);
}

struct sub_buf {
    char *sub;
};

static int sub_read(struct db_stmt *st, void *arg)
{
    copy_col(st, 0, ((struct sub_buf *)arg)->sub, LTI_ID_LEN);
    return 0;
}

int lti_store_user_sub(struct store *s, const char *issuer, int64_t user_id, char sub[LTI_ID_LEN])
{
    struct sub_buf b = {sub};
    return store_one(s, Q_LTI_USER_SUB, "lti sub", sub_read, &b, "ti", issuer, user_id);
}

static int deployment_read(struct db_stmt *st, void *arg)
{
    copy_col(st, 0, arg, LTI_ID_LEN);
    return 0;
}

int lti_store_context_owner(struct store *s, int64_t platform_id, const char *deployment_id,
                            const char *context_id)
{
    char owner[LTI_ID_LEN];
    int rc = store_one(s, Q_LTI_CONTEXT_GET, "course", deployment_read, owner, "it", platform_id,
                       context_id);
    if (rc != 0)
        return rc;
    return strcmp(owner, deployment_id) ? STORE_EXISTS : 0;
}

int lti_store_context_bind(struct store *s, int64_t platform_id, const char *deployment_id,
                           const char *context_id, const char *title, int64_t by, int64_t now)
{
    int rc = lti_store_context_owner(s, platform_id, deployment_id, context_id);
    if (rc != STORE_NOT_FOUND)
        return rc;
    if (store_run(s, Q_LTI_CONTEXT_INSERT, "itttii", platform_id, deployment_id, context_id,
                  title ? title : "", by, now) < 0)
        /* a concurrent first launch bound it: read who won */
        return db_errclass(s->db) == DB_UNIQUE
                   ? lti_store_context_owner(s, platform_id, deployment_id, context_id)
                   : -1;
    return 0;
}

int lti_store_link_put(struct store *s, const struct lti_link *l, int64_t now, int64_t *id)
{
    struct db_stmt *st = store_prep(s, Q_LTI_LINK_PUT);
    int rc = -1;
    if (!st || store_bind(s, st, "ittttttttti", l->platform_id, l->deployment_id, l->context_id,
                          l->resource_link_id, l->kind, l->slug,
                          l->ags_lineitems_url[0] ? l->ags_lineitems_url : NULL,
                          l->ags_lineitem_url[0] ? l->ags_lineitem_url : NULL,
                          l->ags_scopes[0] ? l->ags_scopes : NULL,
                          l->nrps_url[0] ? l->nrps_url : NULL, now) < 0)
        goto out;
    int64_t new_id;
    if (store_insert_id(st, &new_id) < 0) {
        rc = store_fail(s, "record lti link");
        goto out;
    }
    if (id)
        *id = new_id;
    rc = 0;
out:
    store_done(st);
    return rc;
}

static int link_row(struct db_stmt *st, void *arg)
{
    struct lti_link *l = arg;
    l->id = db_column_int64(st, 0);
    l->platform_id = db_column_int64(st, 1);
    copy_col(st, 2, l->deployment_id, sizeof l->deployment_id);
    copy_col(st, 3, l->context_id, sizeof l->context_id);
    copy_col(st, 4, l->resource_link_id, sizeof l->resource_link_id);
    copy_col(st, 5, l->kind, sizeof l->kind);
    copy_col(st, 6, l->slug, sizeof l->slug);
    copy_col(st, 7, l->ags_lineitems_url, sizeof l->ags_lineitems_url);
    copy_col(st, 8, l->ags_lineitem_url, sizeof l->ags_lineitem_url);
    copy_col(st, 9, l->ags_scopes, sizeof l->ags_scopes);
    copy_col(st, 10, l->nrps_url, sizeof l->nrps_url);
    l->updated_at = db_column_int64(st, 11);
    return 0;
}

int lti_store_link_get(struct store *s, int64_t id, struct lti_link *l)
{
    return store_one(s, Q_LTI_LINK_GET, "lti link", link_row, l, "i", id);
}

struct links_cb {
    int (*fn)(void *arg, const struct lti_link *l);
    void *arg;
};

static int links_row(struct db_stmt *st, void *arg)
{
    struct links_cb *c = arg;
    struct lti_link l;
    link_row(st, &l);
    return c->fn(c->arg, &l) ? -1 : 0;
}

int lti_store_links(struct store *s, const char *kind, const char *slug,
                    int (*fn)(void *arg, const struct lti_link *l), void *arg)
{
    struct links_cb c = {fn, arg};
    return store_each(s, Q_LTI_LINKS, "lti links", links_row, &c, "tt", kind ? kind : "",
                      slug ? slug : "");
}
