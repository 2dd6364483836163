/*
 * catalog_upload — a new version of a problem from an instructor's upload
 * (POST and PUT /api/problems, catalog_upload in catalog.h).
 *
 * Versions are immutable: a submission records (slug, version) and is
 * judged against exactly that package, even after an instructor replaces
 * it. Order of an upload, under one mutex (uploads are rare and slow):
 *   1. parse the slug out of problem.json; N = current + 1;
 *   2. write the files to v<N>/<slug>/ (removing a leftover of a crash
 *      between steps 2 and 4, which the database never recorded);
 *   3. validate: problem_load, the statement renders, the reference judged
 *      as a submission is accepted on every test, the starter compiles;
 *   4. record version N and its package in one transaction; on any
 *      failure remove the directory. Only then does the registry show the
 *      new version.
 */
#include "server/catalog.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "judge/check.h"
#include "judge/names.h"
#include "server/registry.h"
#include "server/catalog_json.h"
#include "server/mathcheck.h"
#include "server/package.h"
#include "util/clock.h"
#include "util/fs.h"

/* Removes every occurrence of prefix (an internal path) from msg. */
static void strip_path(char *msg, const char *prefix)
{
    size_t n = strlen(prefix);
    char *p;
    while (n && (p = strstr(msg, prefix))) {
        const char *rest = p + n;
        if (*rest == '/')
            rest++;
        memmove(p, rest, strlen(rest) + 1);
    }
}

/* Keeps the first failure judge_check_problem() reports, for the uploader. */
struct first_failure {
    char *err;
    size_t errlen;
    bool seen;
};

static void keep_first_failure(void *arg, bool ok, const char *line)
{
    struct first_failure *f = arg;
    if (ok || f->seen)
        return;
    f->seen = true;
    snprintf(f->err, f->errlen, "%s", line);
}

/* The same validation as `attnjudge problem check` (judge/check.c), its
 * KaTeX rule included (server/mathcheck.c). */
static int validate(struct catalog *r, struct judge_ctx *judge, const struct problem *p,
                    struct catalog_upload_note *note, char *err, size_t errlen)
{
    struct first_failure first = {err, errlen, false};
    int rc = judge_check_problem(judge, p, keep_first_failure, &first, err, errlen);
    if (rc != 0)
        return rc < 0 ? -1 : CATALOG_INVALID;
    if (mathcheck_package(r->mathcheck ? r->mathcheck : "", p, err, errlen, &note->math_checked,
                          note->math_note, sizeof note->math_note))
        return CATALOG_INVALID;
    return 0;
}

/* Undoes add_version's change to the registry: version v of slug, which
 * was current_before (0 and created: the entry was new). Caller holds the
 * write lock. */
static void remove_version(struct catalog *r, const char *slug, int v, int current_before,
                           bool created)
{
    struct entry *e = catalog_find(r, slug);
    if (!e)
        return;
    for (size_t k = 0; k < e->n_v; k++)
        if (e->v[k].version == v) {
            e->v[k] = e->v[--e->n_v]; /* the problem stays the caller's */
            break;
        }
    e->current = current_before;
    if (created) {
        free(e->v);
        free(e->detail);
        free(e->item);
        size_t i = (size_t)(e - r->e);
        memmove(e, e + 1, (r->n - i - 1) * sizeof *e);
        r->n--;
    }
}

int catalog_upload(struct catalog *r, struct store *s, struct judge_ctx *judge,
                   const char *url_slug, const struct catalog_package *pkg, int64_t user_id,
                   int *version, char *slug_out, size_t slug_len, struct catalog_upload_note *note,
                   char *err, size_t errlen, struct problem_errors *errors)
{
    int rc = -1, v = 0;
    bool dir_made = false;
    char dir[PATH_LEN], hash[65], msg[PROBLEM_ERR_LEN];
    struct problem *p = NULL;
    json_error_t jerr;
    /* The one parse of problem_json: the slug comes from it here, and
     * problem_load_parsed validates the same tree. */
    json_t *meta = json_loads(pkg->problem_json, JSON_REJECT_DUPLICATES, &jerr);
    const char *slug = meta ? json_string_value(json_object_get(meta, "slug")) : NULL;

    if (slug_len)
        slug_out[0] = '\0';
    pthread_mutex_lock(&r->upload_lock);
    if (!meta) {
        snprintf(err, errlen, "problem_json: line %d: %s", jerr.line, jerr.text);
        rc = CATALOG_INVALID;
        goto out;
    }
    if (!slug || !names_slug_valid(slug)) {
        snprintf(err, errlen, "problem_json: slug: missing or not a valid slug");
        rc = CATALOG_INVALID;
        goto out;
    }
    if (url_slug && strcmp(url_slug, slug)) {
        snprintf(err, errlen, "problem_json: slug '%s' does not match the URL's '%s'", slug,
                 url_slug);
        rc = CATALOG_MISMATCH;
        goto out;
    }
    struct store_problem_version cur;
    int found = store_problem_current(s, slug, &cur);
    if (found < 0) {
        snprintf(err, errlen, "database: %s", store_error(s));
        goto out;
    }
    if (found == 0 && !url_slug) {
        snprintf(err, errlen, "problem '%s' exists; replace it with PUT /api/problems/%s", slug,
                 slug);
        rc = CATALOG_EXISTS;
        goto out;
    }
    v = found == 0 ? cur.current_version + 1 : 1;
    if (catalog_version_dir(r, slug, v, dir, sizeof dir) < 0 || package_write(dir, pkg) < 0) {
        snprintf(err, errlen, "writing version %d of %s: %s", v, slug, strerror(errno));
        goto out;
    }
    dir_made = true;
    if (!(p = problem_load_parsed(dir, pkg->problem_json, meta, msg, sizeof msg, errors))) {
        strip_path(msg, dir);
        for (size_t i = 0; errors && i < errors->n; i++) {
            strip_path(errors->e[i].field, dir);
            strip_path(errors->e[i].text, dir);
        }
        snprintf(err, errlen, "%s", msg);
        rc = CATALOG_INVALID;
        goto out;
    }
    if ((rc = validate(r, judge, p, note, err, errlen)) != 0)
        goto out;
    package_hash(pkg, hash);
    rc = -1;
    int got = 0;
    if (store_begin(s) < 0 ||
        store_problem_add_version(s, slug, p->title ? p->title : slug, hash, "upload", user_id,
                                  false, clock_wall_ms(), &got) != 0 ||
        got != v || package_record(s, slug, v, pkg) != 0 ||
        (pkg->state && store_problem_set_state(s, slug, pkg->state, 0) != 0)) {
        snprintf(err, errlen, "database: %s", store_error(s));
        store_rollback(s);
        goto out;
    }
    /* The registry takes the version before the commit and gives it back
     * if anything fails, the commit included: the database and GET
     * /api/problems never disagree. Readers wait meanwhile (one commit). */
    pthread_rwlock_wrlock(&r->lock);
    struct entry *e = catalog_find(r, slug);
    bool created = !e;
    int current_before = e ? e->current : 0;
    struct catalog_bodies b = {0};
    bool added = (e || (e = catalog_add_entry(r, slug))) && catalog_add_loaded(e, v, p) == 0;
    char state_before[sizeof e->state] = "";
    int64_t publish_before = 0;
    if (added) {
        e->current = v;
        snprintf(state_before, sizeof state_before, "%s", e->state);
        publish_before = e->publish_at;
        if (pkg->state) {
            snprintf(e->state, sizeof e->state, "%s", pkg->state);
            e->publish_at = 0;
        }
    }
    bool built = added && catalog_bodies_build(r, &b) == 0;
    if (!built || store_commit(s) < 0) {
        if (built)
            snprintf(err, errlen, "database: %s", store_error(s));
        else
            snprintf(err, errlen, "adding version %d of %s to the registry: out of memory", v,
                     slug);
        if (added && !created) {
            snprintf(e->state, sizeof e->state, "%s", state_before);
            e->publish_at = publish_before;
        }
        if (added || created)
            remove_version(r, slug, v, current_before, created);
        catalog_bodies_free(&b);
        pthread_rwlock_unlock(&r->lock);
        store_rollback(s);
        goto out;
    }
    catalog_bodies_publish(r, &b);
    p = NULL; /* owned by the registry now */
    pthread_rwlock_unlock(&r->lock);
    snprintf(slug_out, slug_len, "%s", slug);
    dir_made = false;
    *version = v;
    rc = 0;
out:
    if (dir_made)
        fs_remove_tree(dir);
    pthread_mutex_unlock(&r->upload_lock);
    problem_free(p);
    json_decref(meta);
    return rc;
}
