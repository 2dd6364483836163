/*
 * catalog — the registry of problem versions: lookups, states, deletion
 * and the samples archive (see catalog.h). Its other parts: package.c (a
 * version's files), catalog_sync.c (start-up import and refresh from the
 * database), catalog_upload.c and catalog_json.c (the cached GET bodies).
 *
 * Versions are immutable: a submission records (slug, version) and is
 * judged against exactly that package, even after an instructor replaces
 * it. So every version, whether imported from the problems directory at
 * start-up or uploaded over HTTP, is copied to <data>/problems/v<N>/<slug>/
 * (the last path component must equal the slug, as problem_load requires)
 * with its own reference.c, and recorded in the database in the same step.
 * A version this host lacks the files of is fetched from the database on
 * first need (catalog_get, package_materialize).
 *
 * The registry caches the loaded `struct problem` of every version it has
 * served and the JSON bodies of the two GET routes for current versions;
 * a read-write lock lets many HTTP threads read at once.
 */
#include "server/catalog.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/samples.h"
#include "server/registry.h"
#include "server/catalog_json.h"
#include "server/package.h"
#include "util/array.h"
#include "util/fs.h"

struct catalog *catalog_new(const char *data_dir, const char *reference_dir)
{
    struct catalog *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    snprintf(r->data_dir, sizeof r->data_dir, "%s", data_dir);
    snprintf(r->reference_dir, sizeof r->reference_dir, "%s", reference_dir ? reference_dir : "");
    pthread_rwlock_init(&r->lock, NULL);
    pthread_mutex_init(&r->upload_lock, NULL);
    pthread_mutex_init(&r->samples_lock, NULL);
    pthread_mutex_init(&r->fetch_lock, NULL);
    return r;
}

int catalog_set_database(struct catalog *r, const char *url)
{
    free(r->db_url);
    r->db_url = url ? strdup(url) : NULL;
    return url && !r->db_url ? -1 : 0;
}

int catalog_set_mathcheck(struct catalog *r, const char *script)
{
    free(r->mathcheck);
    r->mathcheck = script ? strdup(script) : NULL;
    return script && !r->mathcheck ? -1 : 0;
}

void catalog_free(struct catalog *r)
{
    if (!r)
        return;
    free(r->mathcheck);
    for (size_t i = 0; i < r->n; i++) {
        for (size_t k = 0; k < r->e[i].n_v; k++) {
            problem_free(r->e[i].v[k].p);
            free(r->e[i].v[k].samples_zip);
        }
        free(r->e[i].v);
        free(r->e[i].detail);
        free(r->e[i].item);
    }
    free(r->e);
    for (size_t i = 0; i < r->n_graveyard; i++)
        problem_free(r->graveyard[i]);
    free(r->graveyard);
    pthread_rwlock_destroy(&r->lock);
    pthread_mutex_destroy(&r->upload_lock);
    pthread_mutex_destroy(&r->samples_lock);
    pthread_mutex_destroy(&r->fetch_lock);
    store_close(r->fetch_store);
    free(r->db_url);
    free(r);
}

/* ---- the registry ---- */

struct entry *catalog_add_entry(struct catalog *r, const char *slug)
{
    struct entry *e = catalog_find(r, slug);
    if (e)
        return e;
    if (ARRAY_RESERVE(r->e, r->n, r->cap, 16) < 0)
        return NULL;
    e = &r->e[r->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->slug, sizeof e->slug, "%s", slug);
    snprintf(e->state, sizeof e->state, "draft");
    return e;
}

int catalog_add_loaded(struct entry *e, int version, struct problem *p)
{
    if (ARRAY_RESERVE(e->v, e->n_v, e->cap_v, 4) < 0)
        return -1;
    e->v[e->n_v++] = (struct loaded){.version = version, .p = p};
    return 0;
}

/* Removes this host's directories of slug's versions 1 to last. */
void catalog_remove_dirs(struct catalog *r, const char *slug, int last)
{
    for (int v = 1; v <= last; v++) {
        char dir[PATH_LEN];
        if (catalog_version_dir(r, slug, v, dir, sizeof dir) == 0 && fs_remove_tree(dir) < 0)
            fprintf(stderr, "attnjudge: problem %s: cannot remove %s: %s\n", slug, dir,
                    strerror(errno));
    }
}

/* ---- lookups ---- */

const struct problem *catalog_get(struct catalog *r, const char *slug, int version, char *err,
                                  size_t errlen)
{
    struct problem *p = NULL;
    pthread_rwlock_rdlock(&r->lock);
    struct entry *e = catalog_find(r, slug);
    if (e)
        p = catalog_loaded(e, version);
    pthread_rwlock_unlock(&r->lock);
    if (p)
        return p;
    char dir[PATH_LEN], msg[PROBLEM_ERR_LEN] = "path too long";
    bool dir_ok = catalog_version_dir(r, slug, version, dir, sizeof dir) == 0;
    int fetch_errno = 0;
    if (dir_ok && package_dir_missing(dir) &&
        package_materialize(r, NULL, slug, version, dir, msg, sizeof msg) < 0) {
        fetch_errno = errno;
        dir_ok = false;
    }
    pthread_rwlock_wrlock(&r->lock);
    if (!(e = catalog_add_entry(r, slug))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if ((p = catalog_loaded(e, version)))
        goto out;
    if (!dir_ok || !(p = problem_load(dir, NULL, msg, sizeof msg))) {
        snprintf(err, errlen, "problem %s version %d: %s", slug, version, msg);
        goto out;
    }
    if (catalog_add_loaded(e, version, p) < 0) {
        problem_free(p);
        p = NULL;
        snprintf(err, errlen, "out of memory");
    }
out:
    pthread_rwlock_unlock(&r->lock);
    if (!p && fetch_errno == EAGAIN)
        errno = EAGAIN; /* for the caller's resource_errno (queue.c) */
    return p;
}

const struct problem *catalog_current(struct catalog *r, const char *slug, int *version, char *err,
                                      size_t errlen)
{
    pthread_rwlock_rdlock(&r->lock);
    struct entry *e = catalog_find(r, slug);
    int v = e ? e->current : 0;
    pthread_rwlock_unlock(&r->lock);
    if (v <= 0) {
        snprintf(err, errlen, "no problem '%s'", slug);
        return NULL;
    }
    *version = v;
    return catalog_get(r, slug, v, err, errlen);
}

static char *dup_len(const char *s, size_t n, size_t *len)
{
    char *d = s ? malloc(n + 1) : NULL;
    if (d) {
        memcpy(d, s, n + 1);
        *len = n;
    }
    return d;
}

/* A copy of the cached archive of (slug, version) into *out; false if
 * there is none yet (or no memory for the copy: *out NULL then too). */
static bool samples_cached(struct catalog *r, const char *slug, int version, unsigned char **out,
                           size_t *len)
{
    bool hit = false;
    pthread_rwlock_rdlock(&r->lock);
    struct entry *e = catalog_find(r, slug);
    struct loaded *l = e ? catalog_loaded_version(e, version) : NULL;
    if (l && l->samples_zip) {
        hit = true;
        if ((*out = malloc(l->samples_len ? l->samples_len : 1))) {
            memcpy(*out, l->samples_zip, l->samples_len);
            *len = l->samples_len;
        }
    }
    pthread_rwlock_unlock(&r->lock);
    return hit;
}

int catalog_samples_zip(struct catalog *r, struct judge_ctx *judge, const char *slug,
                        unsigned char **out, size_t *len, char *err, size_t errlen)
{
    int version = 0, rc = -1;
    unsigned char *zip = NULL;
    size_t zip_len = 0;
    *out = NULL;
    *len = 0;
    const struct problem *p = catalog_current(r, slug, &version, err, errlen);
    if (!p)
        return CATALOG_NOT_FOUND;
    if (samples_cached(r, slug, version, out, len))
        goto copied;
    /* Built once per version: concurrent first requests wait for it. */
    pthread_mutex_lock(&r->samples_lock);
    if (samples_cached(r, slug, version, out, len)) {
        pthread_mutex_unlock(&r->samples_lock);
        goto copied;
    }
    if (samples_archive(judge, p, &zip, &zip_len, err, errlen) < 0) {
        pthread_mutex_unlock(&r->samples_lock);
        return -1;
    }
    pthread_rwlock_wrlock(&r->lock);
    struct entry *e = catalog_find(r, slug);
    struct loaded *l = e ? catalog_loaded_version(e, version) : NULL;
    if (l && !l->samples_zip) {
        l->samples_zip = zip;
        l->samples_len = zip_len;
        zip = NULL;
    }
    pthread_rwlock_unlock(&r->lock);
    pthread_mutex_unlock(&r->samples_lock);
    if (!samples_cached(r, slug, version, out, len)) {
        /* the version vanished meanwhile (a failed upload): serve ours */
        *out = zip;
        *len = zip_len;
        zip = NULL;
    }
copied:
    free(zip);
    if (*out)
        rc = 0;
    else
        snprintf(err, errlen, "out of memory");
    return rc;
}

/* Whether e is offered to the caller: the visibility rule of
 * docs/api.md ("Problem states"). Caller holds the lock. */
static bool visible(const struct entry *e, bool all, int64_t now)
{
    if (e->current <= 0 || !e->detail)
        return false;
    return all || (strcmp(e->state, "draft") && (e->publish_at == 0 || e->publish_at <= now));
}

char *catalog_list_json(struct catalog *r, bool all, int64_t now, size_t *len)
{
    static const char head[] = "{\"problems\":[", tail[] = "]}";
    pthread_rwlock_rdlock(&r->lock);
    size_t n = sizeof head + sizeof tail;
    for (size_t i = 0; i < r->n; i++)
        if (visible(&r->e[i], all, now))
            n += r->e[i].item_len + 1;
    char *d = malloc(n), *w = d;
    if (d) {
        w = stpcpy(w, head);
        bool first = true;
        for (size_t i = 0; i < r->n; i++) {
            if (!visible(&r->e[i], all, now))
                continue;
            if (!first)
                *w++ = ',';
            first = false;
            memcpy(w, r->e[i].item, r->e[i].item_len);
            w += r->e[i].item_len;
        }
        w = stpcpy(w, tail);
        *len = (size_t)(w - d);
    }
    pthread_rwlock_unlock(&r->lock);
    return d;
}

char *catalog_detail_json(struct catalog *r, const char *slug, bool all, int64_t now, size_t *len)
{
    char *d = NULL;
    pthread_rwlock_rdlock(&r->lock);
    struct entry *e = catalog_find(r, slug);
    if (e && visible(e, all, now))
        d = dup_len(e->detail, e->detail_len, len);
    pthread_rwlock_unlock(&r->lock);
    return d;
}

int catalog_access(struct catalog *r, const char *slug, bool all, int64_t now)
{
    int rc = CATALOG_NOT_FOUND;
    pthread_rwlock_rdlock(&r->lock);
    struct entry *e = catalog_find(r, slug);
    if (e && visible(e, all, now))
        rc = strcmp(e->state, "archived") ? 0 : CATALOG_ARCHIVED;
    pthread_rwlock_unlock(&r->lock);
    return rc;
}

bool catalog_state_valid(const char *state)
{
    return !strcmp(state, "draft") || !strcmp(state, "published") || !strcmp(state, "archived");
}

int catalog_set_state(struct catalog *r, struct store *s, const char *slug, const char *state,
                      int64_t publish_at)
{
    int rc = -1;
    /* The upload lock orders this against an upload of the same slug. */
    pthread_mutex_lock(&r->upload_lock);
    pthread_rwlock_wrlock(&r->lock);
    struct entry *e = catalog_find(r, slug);
    if (!e || e->current <= 0) {
        rc = CATALOG_NOT_FOUND;
        goto out;
    }
    int st = store_problem_set_state(s, slug, state, publish_at);
    if (st != 0) {
        rc = st == STORE_NOT_FOUND ? CATALOG_NOT_FOUND : -1;
        goto out;
    }
    snprintf(e->state, sizeof e->state, "%s", state);
    e->publish_at = publish_at;
    /* The bodies carry the state; if they cannot be rebuilt (out of
     * memory) the old ones stay, with an old state but the right
     * visibility, which reads e->state. */
    if (catalog_rebuild(r) < 0)
        fprintf(stderr, "attnjudge: problem %s: cannot rebuild its description\n", slug);
    rc = 0;
out:
    pthread_rwlock_unlock(&r->lock);
    pthread_mutex_unlock(&r->upload_lock);
    return rc;
}

/* Removes slug's entry, keeping its loaded problems in the graveyard.
 * Caller holds the write lock. Returns 0 or -1 (out of memory: nothing
 * changed). */
int catalog_bury(struct catalog *r, struct entry *e)
{
    struct problem **g = realloc(r->graveyard, (r->n_graveyard + e->n_v) * sizeof *g);
    if (!g && r->n_graveyard + e->n_v > 0)
        return -1;
    r->graveyard = g;
    for (size_t k = 0; k < e->n_v; k++) {
        r->graveyard[r->n_graveyard++] = e->v[k].p;
        free(e->v[k].samples_zip);
    }
    free(e->v);
    free(e->detail);
    free(e->item);
    size_t i = (size_t)(e - r->e);
    memmove(e, e + 1, (r->n - i - 1) * sizeof *e);
    r->n--;
    return 0;
}

int catalog_delete(struct catalog *r, struct store *s, const char *slug, char *err, size_t errlen)
{
    int rc = -1, last = 0;
    pthread_mutex_lock(&r->upload_lock);
    pthread_rwlock_wrlock(&r->lock);
    struct entry *e = catalog_find(r, slug);
    if (!e || e->current <= 0) {
        snprintf(err, errlen, "no problem '%s'", slug);
        rc = CATALOG_NOT_FOUND;
        goto out;
    }
    last = e->current;
    int st = store_problem_delete(s, slug);
    if (st == STORE_NOT_FOUND || st == STORE_EXISTS) {
        snprintf(err, errlen,
                 st == STORE_EXISTS ? "problem '%s' has submissions: archive it instead"
                                    : "no problem '%s'",
                 slug);
        rc = st == STORE_EXISTS ? CATALOG_EXISTS : CATALOG_NOT_FOUND;
        goto out;
    }
    if (st < 0) {
        snprintf(err, errlen, "database: %s", store_error(s));
        goto out;
    }
    if (catalog_bury(r, e) < 0) {
        /* The rows are gone: hide the entry at least (it is not offered
         * with current 0) until the next start-up. */
        e->current = 0;
        fprintf(stderr, "attnjudge: problem %s: deleted, kept in memory (out of memory)\n", slug);
    }
    rc = 0;
out:
    pthread_rwlock_unlock(&r->lock);
    if (rc == 0) {
        /* The files of its versions go too, so that a new problem of the
         * same slug starts from version 1 in an empty directory (other
         * hosts remove theirs at their next refresh). */
        catalog_remove_dirs(r, slug, last);
    }
    pthread_mutex_unlock(&r->upload_lock);
    return rc;
}
