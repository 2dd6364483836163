/*
 * registry — the catalog's private state, shared by the catalog's
 * files (catalog.c, catalog_json.c, catalog_sync.c, catalog_upload.c,
 * package.c) and by nothing else: callers outside use server/catalog.h.
 *
 * The registry is a list of entries, one per slug, each with the versions
 * it has loaded. r->lock (a read-write lock) guards the entries; the
 * lookups below take no lock: their callers hold it.
 */
#ifndef ATTNJUDGE_SERVER_REGISTRY_H
#define ATTNJUDGE_SERVER_REGISTRY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "judge/problem.h"

struct store;

#define PATH_LEN 4096

struct loaded {
    int version;
    struct problem *p;
    /* the database's content hash of this version, once a refresh has
     * seen it ("" until then) */
    char hash[80];
    /* GET /api/problems/{slug}/samples of this version, built on first
     * request (catalog_samples_zip); NULL until then */
    unsigned char *samples_zip;
    size_t samples_len;
};

struct entry {
    char slug[80];
    int current;
    struct loaded *v;
    size_t n_v, cap_v;
    char state[12];     /* "draft" | "published" | "archived" */
    int64_t publish_at; /* ms; 0 = none */
    char *detail;       /* GET /api/problems/{slug} of the current version */
    size_t detail_len;
    char *item; /* its element of GET /api/problems */
    size_t item_len;
};

struct catalog {
    pthread_rwlock_t lock;
    pthread_mutex_t upload_lock;
    pthread_mutex_t samples_lock; /* one sample archive is built at a time */
    char data_dir[PATH_LEN];
    char reference_dir[PATH_LEN];
    /* catalog_set_database: the connection that fetches packages, opened
     * on first need, under fetch_lock */
    char *db_url;
    char *mathcheck; /* catalog_set_mathcheck; NULL: none */
    struct store *fetch_store;
    pthread_mutex_t fetch_lock;
    struct entry *e;
    size_t n, cap;
    /* The loaded problems of deleted entries: a worker or a run may still
     * hold one (catalog_get's promise), so they live as long as the
     * registry. */
    struct problem **graveyard;
    size_t n_graveyard;
    /* catalog_refresh: the digest of the database's rows it last brought
     * the registry in line with (seen_valid: that succeeded) */
    unsigned char seen[32];
    bool seen_valid;
    bool refresh_failing; /* the last read failed: said once, not every pass */
};

static inline struct entry *catalog_find(struct catalog *r, const char *slug)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->e[i].slug, slug))
            return &r->e[i];
    return NULL;
}

static inline struct loaded *catalog_loaded_version(struct entry *e, int version)
{
    for (size_t k = 0; k < e->n_v; k++)
        if (e->v[k].version == version)
            return &e->v[k];
    return NULL;
}

static inline struct problem *catalog_loaded(struct entry *e, int version)
{
    struct loaded *l = catalog_loaded_version(e, version);
    return l ? l->p : NULL;
}

/* Returns -1 if the path does not fit (a data_dir near PATH_MAX). */
static inline int catalog_version_dir(const struct catalog *r, const char *slug, int version,
                                      char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s/problems/v%d/%s", r->data_dir, version, slug);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Adds an entry for slug (a draft with no current version) unless there is
 * one; returns it, or NULL when out of memory. Caller holds the write
 * lock. */
struct entry *catalog_add_entry(struct catalog *r, const char *slug);

/* Adds p as the loaded version of e (the registry owns it from now on).
 * 0, or -1 when out of memory. Caller holds the write lock. */
int catalog_add_loaded(struct entry *e, int version, struct problem *p);

/* Removes e from the registry, keeping its loaded problems in the
 * graveyard (a worker may still hold one). Caller holds the write lock.
 * 0, or -1 when out of memory (nothing changed). */
int catalog_bury(struct catalog *r, struct entry *e);

/* Removes this host's directories of slug's versions 1 to last. */
void catalog_remove_dirs(struct catalog *r, const char *slug, int last);

#endif
