/*
 * catalog — the server's registry of problem packages and their versions.
 *
 * Every version is an immutable directory <data>/problems/v<N>/<slug>/ with
 * problem.json, statement.md, starter.c, reference.c, mistakes/, hints/ and
 * walkthrough.md, recorded in the database with its files as one package.
 * Loaded `struct problem`s are cached per version and never freed while the
 * registry lives, so a worker may keep the pointer it got. The database is
 * the truth: every host refreshes its registry from it (catalog_refresh).
 *
 * The one public face of catalog.c, catalog_sync.c and catalog_upload.c,
 * sectioned by file; package.c and catalog_json.c serve them only.
 */
#ifndef ATTNJUDGE_SERVER_CATALOG_H
#define ATTNJUDGE_SERVER_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/judge.h"
#include "server/package.h"
#include "server/store.h"

#define CATALOG_INVALID 1   /* the package is wrong: err is for the uploader */
#define CATALOG_EXISTS 2    /* POST of a slug that exists */
#define CATALOG_MISMATCH 3  /* PUT /api/problems/X with a package of slug Y */
#define CATALOG_NOT_FOUND 4 /* no such problem is offered */
#define CATALOG_ARCHIVED 5  /* readable, but takes no submissions */

struct catalog;

struct catalog *catalog_new(const char *data_dir, const char *reference_dir);
void catalog_free(struct catalog *r);
/* The database url from which catalog_get fetches the package of a version
 * whose directory this host lacks (another host recorded it). Without it
 * such a version does not load. -1 when out of memory. */
int catalog_set_database(struct catalog *r, const char *url) MUST_CHECK;

/* ---- start-up import and refresh (server/catalog_sync.c) ---- */

/* Start-up: imports each package of problems_dir that is new or changed
 * since its last import as a new version (a later upload is not overridden
 * by an unchanged directory), then loads every current version
 * (catalog_refresh). Packages that do not load are reported on stderr and
 * skipped. Returns 0 or -1. */
int catalog_sync(struct catalog *r, struct store *s, const char *problems_dir, char *err,
                 size_t errlen);

/* How often a host brings its registry in line with the database
 * (catalog_refresh): the longest a front end shows an old state of a
 * problem changed through another front end. */
#define CATALOG_REFRESH_MS 2000

/* Brings the registry in line with the database, where other hosts may
 * have added versions, changed states or deleted problems since: one read
 * of the version rows, and nothing more when they are unchanged since the
 * last refresh. A changed or deleted problem is forgotten (the loaded
 * versions a worker may hold stay valid), files of this host that belong
 * to another package of the same slug and version (the problem was
 * deleted and made anew elsewhere) are removed, new current versions are
 * loaded (fetched from the database if this host lacks their files), and
 * versions recorded without their package (before migration 11) get it
 * from this host's files. -1 when the database cannot be read (said once
 * on stderr until it can again). */
int catalog_refresh(struct catalog *r, struct store *s) MUST_CHECK;

/* ---- the registry: lookups, states, deletion (server/catalog.c) ---- */

/* The problem (slug, version), loaded on first use. Borrowed: valid until
 * catalog_free. NULL with a message when it cannot be loaded. */
const struct problem *catalog_get(struct catalog *r, const char *slug, int version, char *err,
                                  size_t errlen);

/* The current version of slug (*version set) as catalog_get returns it;
 * NULL for an unknown slug (err says so) or one that cannot be loaded. */
const struct problem *catalog_current(struct catalog *r, const char *slug, int *version, char *err,
                                      size_t errlen);

/* GET /api/problems/{slug}/samples: the sample archive of slug's current
 * version (judge/samples.h), built on the first request and kept with the
 * version. Returns 0 with a new copy (*out, *len bytes; caller frees),
 * CATALOG_NOT_FOUND, or -1 with a message for the log in err. */
int catalog_samples_zip(struct catalog *r, struct judge_ctx *judge, const char *slug,
                        unsigned char **out, size_t *len, char *err, size_t errlen) MUST_CHECK;

/* Problem states (docs/api.md, "Problem states"): a problem is offered to
 * students and anonymous visitors when it is not a draft and its
 * publish_at, if any, has come (ms since the epoch, now); all (an
 * instructor) sees every problem. */

/* GET /api/problems and GET /api/problems/{slug} bodies (current versions)
 * of the problems offered to the caller, as new malloc'd JSON text; detail
 * returns NULL for a slug not offered. */
char *catalog_list_json(struct catalog *r, bool all, int64_t now, size_t *len);
char *catalog_detail_json(struct catalog *r, const char *slug, bool all, int64_t now, size_t *len);

/* Whether the caller may use slug: 0 (submit, run, read), CATALOG_ARCHIVED
 * (read only) or CATALOG_NOT_FOUND (answer as for an unknown problem). */
int catalog_access(struct catalog *r, const char *slug, bool all, int64_t now);

/* Whether state is one of "draft", "published", "archived". */
bool catalog_state_valid(const char *state);

/* PATCH /api/problems/{slug}: sets the state (catalog_state_valid) and
 * publish_at (ms; 0 = none) in the database and the registry. 0,
 * CATALOG_NOT_FOUND, or -1 (store_error(s)). */
int catalog_set_state(struct catalog *r, struct store *s, const char *slug, const char *state,
                      int64_t publish_at) MUST_CHECK;

/* DELETE /api/problems/{slug}: removes a problem without submissions from
 * the database, the registry and the disk. 0, CATALOG_NOT_FOUND,
 * CATALOG_EXISTS (it has submissions: nothing changed), or -1; err says
 * why. A problem still in the problems directory comes back at the next
 * start-up. */
int catalog_delete(struct catalog *r, struct store *s, const char *slug, char *err,
                   size_t errlen) MUST_CHECK;

/* The KaTeX checker uploads run their math through (web/mathcheck.mjs,
 * server/mathcheck.h); without one, uploads say their math was not
 * checked. -1 when out of memory. */
int catalog_set_mathcheck(struct catalog *r, const char *script) MUST_CHECK;

/* ---- uploads (server/catalog_upload.c) ---- */

/* What an upload found beyond its verdict: whether KaTeX checked its math,
 * and if not, why (one line for the uploader). */
struct catalog_upload_note {
    bool math_checked;
    char math_note[256];
};

/* Validates pkg as `attnjudge problem check` does (schema, the reference
 * compiles and passes every test, the starter compiles, the statement
 * renders, KaTeX renders its math) and stores it as the slug's next
 * version, in the database and in the registry together (neither keeps it
 * if the other cannot). url_slug is NULL for POST (create only). Returns 0
 * with *version set, the package's slug in slug_out (slug_len bytes) and
 * *note filled, CATALOG_* with a message for the uploader in err, or -1 on
 * an internal failure (err for the log). errors (may be NULL) receives
 * every error of the package's schema and files when they fail to load
 * (err is the first of them); the caller frees it with problem_errors_free,
 * whatever the result. */
int catalog_upload(struct catalog *r, struct store *s, struct judge_ctx *judge,
                   const char *url_slug, const struct catalog_package *pkg, int64_t user_id,
                   int *version, char *slug_out, size_t slug_len, struct catalog_upload_note *note,
                   char *err, size_t errlen, struct problem_errors *errors) MUST_CHECK;

#endif
