/*
 * package — the files of one version of a problem: its directory under
 * <data>/problems/v<N>/<slug>/, its content hash, and its packed form in
 * the database. The catalog's files use it; nothing else does.
 *
 * Functions return 0 or -1 with errno unless said otherwise.
 */
#ifndef ATTNJUDGE_SERVER_PACKAGE_H
#define ATTNJUDGE_SERVER_PACKAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "judge/problem.h"

struct catalog;
struct store;

/* An uploaded package (docs/api.md): the four files' contents, the C
 * files of its known mistakes, mistakes/<id>.c, by id (ids already valid
 * slugs), its hints hints/1.md ... in order and its walkthrough.md (NULL:
 * none). Borrowed strings. */
struct catalog_package {
    const char *problem_json, *statement_md, *starter_c, *reference_c;
    size_t n_mistakes;
    const char *mistake_id[PROBLEM_MAX_MISTAKES];
    const char *mistake_c[PROBLEM_MAX_MISTAKES];
    size_t n_hints;
    const char *hint_md[PROBLEM_MAX_HINTS];
    const char *walkthrough_md;
    /* its problem's state from now on ("draft" | "published" | "archived",
     * catalog_state_valid), publish_at cleared; NULL: a new problem is a
     * draft, a replaced one keeps its state */
    const char *state;
};

/* The files of a package directory read into a catalog_package (pkg's
 * strings borrow from p and the other fields). */
struct package_files {
    struct problem *p;
    char *reference_c;
    char *mistake_c[PROBLEM_MAX_MISTAKES];
    struct catalog_package pkg;
};

/* Reads the package in dir (its reference.c, or reference_dir's for a
 * package of the problems directory) into *f (free with
 * package_files_free). 0, or -1 with a message in err. */
int package_read(const char *dir, const char *reference_dir, struct package_files *f, char *err,
                 size_t errlen);
void package_files_free(struct package_files *f);

/* The content hash of pkg, 64 hex digits: what the database records as
 * the version's content_hash. */
void package_hash(const struct catalog_package *pkg, char out[65]);

/* Writes the files of pkg into a fresh dir (removed first), with the
 * package's content hash in its stamp file (package_dir_stale). */
int package_write(const char *dir, const struct catalog_package *pkg);

/* Records pkg as the package of (slug, version) inside the caller's
 * transaction on s. */
int package_record(struct store *s, const char *slug, int version,
                   const struct catalog_package *pkg);

/* Makes dir (v<N>/<slug>) from version's package in the database: fetched
 * with s, or with the catalog's own connection (catalog_set_database) when
 * s is NULL. 0, or -1 with a message in msg and errno EAGAIN when the
 * failure may pass (the database unreachable, a write failing). */
int package_materialize(struct catalog *r, struct store *s, const char *slug, int version,
                        const char *dir, char *msg, size_t msglen);

/* Whether dir (a version directory) is missing here. */
bool package_dir_missing(const char *dir);

/* Whether the version directory dir holds another package than the one
 * the database records as hash (its stamp differs). A directory without
 * a stamp is taken as it is. */
bool package_dir_stale(const char *dir, const char *hash);

#endif
