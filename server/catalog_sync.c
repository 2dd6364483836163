/*
 * catalog_sync — bringing this host's registry in line with the database:
 * the start-up import of the problems directory (catalog_sync) and the
 * periodic refresh (catalog_refresh), both declared in catalog.h.
 *
 * A directory package is imported as a new version only when it is new or
 * changed since its last import, so an unchanged directory never
 * overrides a later upload.
 *
 * Other hosts change the catalog too: every front end and judge host calls
 * catalog_refresh every CATALOG_REFRESH_MS, which reads the version rows
 * (one query; a digest of them says whether anything changed) and brings
 * the registry in line: new versions, states, deleted problems. Versions
 * restart at 1 when a problem is deleted and made anew under the same
 * slug, so a directory or a loaded version whose content hash is not the
 * database's is dropped and fetched again (package.c's stamp).
 */
#include "server/catalog.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>

#include <sodium.h>

#include "server/registry.h"
#include "server/catalog_json.h"
#include "server/package.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/fs.h"

struct sync_state {
    const char *slug;
    int current;
    char current_hash[80], dir_hash[80];
};

static int note_version(void *arg, const struct store_problem_version *v)
{
    struct sync_state *st = arg;
    if (strcmp(v->slug, st->slug))
        return 0;
    st->current = v->current_version;
    if (v->version == v->current_version)
        snprintf(st->current_hash, sizeof st->current_hash, "%s", v->content_hash);
    if (!strcmp(v->origin, "directory")) /* ordered by version: keeps the latest */
        snprintf(st->dir_hash, sizeof st->dir_hash, "%s", v->content_hash);
    return 0;
}

/* Imports one directory package if it is new or changed. */
static int import_dir(struct catalog *r, struct store *s, const char *dir)
{
    char err[PROBLEM_ERR_LEN], hash[65], vdir[PATH_LEN];
    struct package_files f;
    int rc = 0, version = 0;
    if (package_read(dir, r->reference_dir[0] ? r->reference_dir : NULL, &f, err, sizeof err) < 0) {
        fprintf(stderr, "attnjudge: skipping problem %s: %s\n", dir, err);
        return 0;
    }
    const struct problem *p = f.p;
    package_hash(&f.pkg, hash);
    struct sync_state st = {.slug = p->slug};
    if (store_problem_versions(s, note_version, &st) < 0) {
        fprintf(stderr, "attnjudge: database: %s\n", store_error(s));
        rc = -1;
        goto out;
    }
    if (!strcmp(st.dir_hash, hash) || !strcmp(st.current_hash, hash))
        goto out; /* unchanged since its import, or identical to the current */
    if (catalog_version_dir(r, p->slug, st.current + 1, vdir, sizeof vdir) < 0 ||
        package_write(vdir, &f.pkg) < 0) {
        fprintf(stderr, "attnjudge: cannot write %s: %s\n", vdir, strerror(errno));
        rc = -1;
        goto out;
    }
    if (store_begin(s) < 0 ||
        store_problem_add_version(s, p->slug, p->title ? p->title : p->slug, hash, "directory", 0,
                                  false, clock_wall_ms(), &version) != 0 ||
        package_record(s, p->slug, version, &f.pkg) != 0 || store_commit(s) < 0) {
        fprintf(stderr, "attnjudge: database: %s\n", store_error(s));
        store_rollback(s);
        fs_remove_tree(vdir);
        rc = -1;
        goto out;
    }
    fprintf(stderr, "attnjudge: problem %s: imported %s as version %d\n", p->slug, dir, version);
out:
    package_files_free(&f);
    return rc;
}

int catalog_sync(struct catalog *r, struct store *s, const char *problems_dir, char *err,
                 size_t errlen)
{
    DIR *d = opendir(problems_dir);
    if (!d) {
        fprintf(stderr, "attnjudge: problems directory %s: %s (continuing without it)\n",
                problems_dir, strerror(errno));
    } else {
        struct dirent *de;
        char **names = NULL;
        size_t n = 0;
        while ((de = readdir(d))) {
            char path[PATH_LEN];
            struct stat sb;
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s/problem.json", problems_dir, de->d_name);
            if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode))
                continue;
            char **v = realloc(names, (n + 1) * sizeof *names);
            if (!v)
                break;
            names = v;
            if ((names[n] = strdup(de->d_name)))
                n++;
        }
        closedir(d);
        int rc = 0;
        for (size_t i = 0; i < n; i++) {
            char path[PATH_LEN];
            snprintf(path, sizeof path, "%s/%s", problems_dir, names[i]);
            if (rc == 0 && import_dir(r, s, path) < 0)
                rc = -1;
            free(names[i]);
        }
        free(names);
        if (rc < 0) {
            snprintf(err, errlen, "cannot import the problems directory");
            return -1;
        }
    }
    if (catalog_refresh(r, s) < 0) {
        snprintf(err, errlen, "loading problems: %s", store_error(s));
        return -1;
    }
    return 0;
}

/* ---- refresh: the database is the truth, the registry its cache ---- */

/* One row of store_problem_versions, as a refresh compares it. */
struct version_row {
    char slug[80];
    int version, current;
    char hash[80];
    char state[12];
    int64_t publish_at;
    bool has_package;
    bool stale; /* this host's directory of it holds another package */
};

struct version_rows {
    struct version_row *v;
    size_t n, cap;
    crypto_generichash_state digest; /* of every row: did anything change? */
};

static int collect_row(void *arg, const struct store_problem_version *v)
{
    struct version_rows *rs = arg;
    if (ARRAY_RESERVE(rs->v, rs->n, rs->cap, 64) < 0)
        return -1;
    struct version_row *w = &rs->v[rs->n++];
    memset(w, 0, sizeof *w); /* the digest reads the padding too */
    snprintf(w->slug, sizeof w->slug, "%s", v->slug);
    w->version = v->version;
    w->current = v->current_version;
    snprintf(w->hash, sizeof w->hash, "%s", v->content_hash);
    snprintf(w->state, sizeof w->state, "%s", v->state);
    w->publish_at = v->publish_at;
    w->has_package = v->has_package;
    crypto_generichash_update(&rs->digest, (const unsigned char *)w, sizeof *w);
    return 0;
}

static const struct version_row *find_row(const struct version_rows *rs, const char *slug,
                                          int version)
{
    for (size_t i = 0; i < rs->n; i++)
        if (rs->v[i].version == version && !strcmp(rs->v[i].slug, slug))
            return &rs->v[i];
    return NULL;
}

/* Records the package of a version made before packages were kept in the
 * database (migration 11) from this host's files of it, when they are
 * what the database says the version is. */
static void backfill(struct catalog *r, struct store *s, const struct version_row *row)
{
    char dir[PATH_LEN], err[PROBLEM_ERR_LEN], hash[65];
    struct package_files f;
    if (catalog_version_dir(r, row->slug, row->version, dir, sizeof dir) < 0 ||
        package_dir_missing(dir) || package_read(dir, NULL, &f, err, sizeof err) < 0)
        return; /* another host may have the files */
    package_hash(&f.pkg, hash);
    if (!strcmp(hash, row->hash)) {
        if (store_begin(s) < 0 || package_record(s, row->slug, row->version, &f.pkg) != 0 ||
            store_commit(s) < 0) {
            fprintf(stderr, "attnjudge: problem %s version %d: recording its package: %s\n",
                    row->slug, row->version, store_error(s));
            store_rollback(s);
        } else {
            fprintf(stderr, "attnjudge: problem %s version %d: package recorded in the database\n",
                    row->slug, row->version);
        }
    }
    package_files_free(&f);
}

/* Whether entry e no longer matches the database: its problem is gone, or
 * a version it loaded is another package now. Fills in the hashes of the
 * versions it loaded before a refresh saw them. Caller holds the write
 * lock. */
static bool entry_outdated(struct entry *e, const struct version_rows *rs)
{
    bool known = false;
    for (size_t i = 0; i < rs->n && !known; i++)
        known = !strcmp(rs->v[i].slug, e->slug);
    if (!known)
        return true;
    for (size_t k = 0; k < e->n_v; k++) {
        struct loaded *l = &e->v[k];
        const struct version_row *row = find_row(rs, e->slug, l->version);
        if (!row || row->stale || (l->hash[0] && strcmp(l->hash, row->hash)))
            return true;
        if (!l->hash[0])
            snprintf(l->hash, sizeof l->hash, "%s", row->hash);
    }
    return false;
}

/* The highest version of e known to this host. */
static int entry_last(const struct entry *e)
{
    int last = e->current;
    for (size_t k = 0; k < e->n_v; k++)
        if (e->v[k].version > last)
            last = e->v[k].version;
    return last;
}

/* Brings the registry and this host's files in line with rs; caller holds
 * the upload lock. Returns 0, or 1 when a current version could not be
 * fetched for a reason that may pass (the next refresh tries again). */
static int reconcile(struct catalog *r, struct store *s, struct version_rows *rs)
{
    int again = 0;
    /* 1. files that belong to another package of the same (slug, version) */
    for (size_t i = 0; i < rs->n; i++) {
        struct version_row *row = &rs->v[i];
        char dir[PATH_LEN];
        if (catalog_version_dir(r, row->slug, row->version, dir, sizeof dir) == 0 &&
            package_dir_stale(dir, row->hash)) {
            row->stale = true;
            fs_remove_tree(dir);
            fprintf(stderr, "attnjudge: problem %s version %d: local files outdated, removed\n",
                    row->slug, row->version);
        }
        if (!row->has_package && !row->stale)
            backfill(r, s, row);
    }
    /* 2. the registry: forget what is gone or changed, take states and
     * current versions. A forgotten problem's loaded versions live on in
     * the graveyard: a worker may still hold one. */
    pthread_rwlock_wrlock(&r->lock);
    for (size_t i = 0; i < r->n;) {
        struct entry *e = &r->e[i];
        if (!entry_outdated(e, rs)) {
            i++;
            continue;
        }
        char slug[sizeof e->slug];
        int last = entry_last(e);
        snprintf(slug, sizeof slug, "%s", e->slug);
        if (catalog_bury(r, e) < 0) {
            e->current = 0; /* not offered; retried at the next change */
            i++;
        }
        catalog_remove_dirs(r, slug, last);
        fprintf(stderr, "attnjudge: problem %s: changed or deleted by another host, reloaded\n",
                slug);
    }
    for (size_t i = 0; i < rs->n; i++) {
        const struct version_row *row = &rs->v[i];
        struct entry *e;
        if (row->version != row->current || !(e = catalog_add_entry(r, row->slug)))
            continue;
        e->current = row->current;
        snprintf(e->state, sizeof e->state, "%s", row->state);
        e->publish_at = row->publish_at;
    }
    pthread_rwlock_unlock(&r->lock);
    /* 3. current versions not loaded yet, fetched from the database when
     * this host lacks their files (outside the lock: readers go on) */
    for (size_t i = 0; i < rs->n; i++) {
        const struct version_row *row = &rs->v[i];
        char err[PROBLEM_ERR_LEN];
        if (row->version != row->current)
            continue;
        errno = 0;
        if (!catalog_get(r, row->slug, row->version, err, sizeof err)) {
            fprintf(stderr, "attnjudge: %s\n", err);
            again |= errno == EAGAIN;
        }
    }
    /* 4. the cached bodies */
    pthread_rwlock_wrlock(&r->lock);
    for (size_t i = 0; i < r->n; i++)
        entry_outdated(&r->e[i], rs); /* records the hashes of step 3's loads */
    if (catalog_rebuild(r) < 0)
        fprintf(stderr, "attnjudge: problems: cannot rebuild their descriptions (out of memory)\n");
    pthread_rwlock_unlock(&r->lock);
    return again;
}

int catalog_refresh(struct catalog *r, struct store *s)
{
    struct version_rows rs = {0};
    unsigned char digest[sizeof r->seen];
    int rc = -1;
    crypto_generichash_init(&rs.digest, NULL, 0, sizeof digest);
    /* Uploads, state changes and deletions on this host commit under the
     * upload lock: a refresh never applies rows read before one of them
     * over the registry's state after it. */
    pthread_mutex_lock(&r->upload_lock);
    if (store_problem_versions(s, collect_row, &rs) < 0) {
        if (!r->refresh_failing)
            fprintf(stderr, "attnjudge: problems: cannot read them: %s\n", store_error(s));
        r->refresh_failing = true;
        goto out;
    }
    if (r->refresh_failing)
        fprintf(stderr, "attnjudge: problems: read again\n");
    r->refresh_failing = false;
    crypto_generichash_final(&rs.digest, digest, sizeof digest);
    rc = 0;
    if (r->seen_valid && !memcmp(digest, r->seen, sizeof digest))
        goto out; /* nothing changed */
    r->seen_valid = reconcile(r, s, &rs) == 0;
    memcpy(r->seen, digest, sizeof digest);
out:
    pthread_mutex_unlock(&r->upload_lock);
    free(rs.v);
    return rc;
}
