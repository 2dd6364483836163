/*
 * package — one version's files: written to its directory, hashed,
 * packed into the database and unpacked from it (materialize), and read
 * back from a directory (see package.h).
 *
 * Hosts share no filesystem: the files of every version are also recorded
 * in the database as one package (a JSON object of file name to text,
 * pack()) in the transaction that records the version (an upload's or a
 * directory import's). A host that lacks v<N>/<slug>/ (another host
 * recorded it, or its data directory is fresh) fetches the package and
 * unpacks it into a temporary directory renamed into place
 * (package_materialize), so two threads or processes doing it at once
 * both end with one complete directory. Versions recorded before
 * migration 11 have no package until a host that has their files records
 * it (backfill, at its next refresh).
 *
 * Every version directory carries the content hash of its package
 * (STAMP_FILE): versions restart at 1 when a problem is deleted and made
 * anew under the same slug, so (slug, version) alone does not name a
 * package across time.
 */
#include "server/package.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "judge/names.h"
#include "server/registry.h"
#include "server/store.h"
#include "util/fs.h"

/* In every version directory: the content hash of the package written
 * there, as the database records it (package_dir_stale). */
#define STAMP_FILE ".package-hash"

static int write_file(int dirfd, const char *name, const char *text)
{
    int rc = -1;
    size_t len = strlen(text);
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    /* The database will say this version exists: make the files durable
     * before it does. */
    if (fs_write_all(fd, text, len) < 0 || fsync(fd) < 0)
        goto out;
    rc = 0;
out:
    close(fd);
    return rc;
}

/* Writes the known mistakes' files into <dir>/mistakes/ (dirfd is dir). */
static int write_mistakes(int dirfd, const struct catalog_package *pkg)
{
    int rc = -1, fd = -1;
    if (!pkg->n_mistakes)
        return 0;
    if (mkdirat(dirfd, "mistakes", 0755) < 0 ||
        (fd = openat(dirfd, "mistakes", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return -1;
    for (size_t i = 0; i < pkg->n_mistakes; i++) {
        char name[96];
        /* ids are slugs (checked by the caller): no '/', no "..", no dot file */
        if (!names_slug_valid(pkg->mistake_id[i])) {
            errno = EINVAL;
            goto out;
        }
        snprintf(name, sizeof name, "%s.c", pkg->mistake_id[i]);
        if (write_file(fd, name, pkg->mistake_c[i]) < 0)
            goto out;
    }
    if (fsync(fd) < 0)
        goto out;
    rc = 0;
out:
    close(fd);
    return rc;
}

/* Writes the hints into <dir>/hints/N.md (dirfd is dir). */
static int write_hints(int dirfd, const struct catalog_package *pkg)
{
    int rc = -1, fd = -1;
    if (!pkg->n_hints)
        return 0;
    if (pkg->n_hints > PROBLEM_MAX_HINTS) {
        errno = EINVAL;
        return -1;
    }
    if (mkdirat(dirfd, "hints", 0755) < 0 ||
        (fd = openat(dirfd, "hints", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return -1;
    for (size_t i = 0; i < pkg->n_hints; i++) {
        char name[32];
        snprintf(name, sizeof name, "%zu.md", i + 1);
        if (write_file(fd, name, pkg->hint_md[i]) < 0)
            goto out;
    }
    if (fsync(fd) < 0)
        goto out;
    rc = 0;
out:
    close(fd);
    return rc;
}

/* Adds one length-prefixed string to a package hash. */
static void hash_part(crypto_generichash_state *st, const char *text)
{
    uint64_t n = strlen(text);
    crypto_generichash_update(st, (const unsigned char *)&n, sizeof n);
    crypto_generichash_update(st, (const unsigned char *)text, n);
}

void package_hash(const struct catalog_package *pkg, char out[65])
{
    crypto_generichash_state st;
    unsigned char h[32];
    const char *parts[4] = {pkg->problem_json, pkg->statement_md, pkg->starter_c, pkg->reference_c};
    crypto_generichash_init(&st, NULL, 0, sizeof h);
    for (int i = 0; i < 4; i++)
        hash_part(&st, parts[i]);
    /* only packages with mistakes hash them: the hash of a package without
     * any stays what it was before mistakes existed (no re-import) */
    for (size_t i = 0; i < pkg->n_mistakes; i++) {
        hash_part(&st, pkg->mistake_id[i]);
        hash_part(&st, pkg->mistake_c[i]);
    }
    /* the same for hints and the walkthrough, each after its file name
     * (which no mistake id can be: ids have no '/' or '.') */
    for (size_t i = 0; i < pkg->n_hints; i++) {
        char name[32];
        snprintf(name, sizeof name, "hints/%zu.md", i + 1);
        hash_part(&st, name);
        hash_part(&st, pkg->hint_md[i]);
    }
    if (pkg->walkthrough_md) {
        hash_part(&st, "walkthrough.md");
        hash_part(&st, pkg->walkthrough_md);
    }
    crypto_generichash_final(&st, h, sizeof h);
    sodium_bin2hex(out, 65, h, sizeof h);
}

/* Writes the files of a package into a fresh dir (removed first), with
 * the package's content hash in its stamp file (package_dir_stale). */
int package_write(const char *dir, const struct catalog_package *pkg)
{
    int rc = -1, fd = -1;
    char hash[65];
    package_hash(pkg, hash);
    if (fs_remove_tree(dir) < 0 || fs_mkdir_p(dir, 0755) < 0)
        return -1;
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -1;
    if (write_file(fd, "problem.json", pkg->problem_json) < 0 ||
        write_file(fd, "statement.md", pkg->statement_md) < 0 ||
        write_file(fd, "starter.c", pkg->starter_c) < 0 ||
        write_file(fd, "reference.c", pkg->reference_c) < 0 || write_mistakes(fd, pkg) < 0 ||
        write_hints(fd, pkg) < 0 ||
        (pkg->walkthrough_md && write_file(fd, "walkthrough.md", pkg->walkthrough_md) < 0) ||
        write_file(fd, STAMP_FILE, hash) < 0 || fsync(fd) < 0)
        goto out;
    rc = 0;
out:
    close(fd);
    return rc;
}

/* ---- packages in the database ---- */

/* The package's files as one JSON object: {"problem.json": text, ...,
 * "mistakes": {id: text}, "hints": [text], "walkthrough.md": text}. */
static char *pack(const struct catalog_package *pkg, size_t *len)
{
    json_t *o = json_object(), *m = json_object(), *h = json_array();
    char *out = NULL;
    if (!o || !m || !h)
        goto out;
    json_object_set_new(o, "problem.json", json_string(pkg->problem_json));
    json_object_set_new(o, "statement.md", json_string(pkg->statement_md));
    json_object_set_new(o, "starter.c", json_string(pkg->starter_c));
    json_object_set_new(o, "reference.c", json_string(pkg->reference_c));
    for (size_t i = 0; i < pkg->n_mistakes; i++)
        json_object_set_new(m, pkg->mistake_id[i], json_string(pkg->mistake_c[i]));
    for (size_t i = 0; i < pkg->n_hints; i++)
        json_array_append_new(h, json_string(pkg->hint_md[i]));
    json_object_set(o, "mistakes", m);
    json_object_set(o, "hints", h);
    if (pkg->walkthrough_md)
        json_object_set_new(o, "walkthrough.md", json_string(pkg->walkthrough_md));
    if ((out = json_dumps(o, JSON_COMPACT)))
        *len = strlen(out);
out:
    json_decref(o);
    json_decref(m);
    json_decref(h);
    return out;
}

/* The inverse of pack: pkg's strings point into *tree (json_decref it). */
static int unpack(const char *data, size_t len, json_t **tree, struct catalog_package *pkg)
{
    json_error_t jerr;
    json_t *o = json_loadb(data, len, 0, &jerr);
    memset(pkg, 0, sizeof *pkg);
    *tree = o;
    if (!json_is_object(o))
        return -1;
    pkg->problem_json = json_string_value(json_object_get(o, "problem.json"));
    pkg->statement_md = json_string_value(json_object_get(o, "statement.md"));
    pkg->starter_c = json_string_value(json_object_get(o, "starter.c"));
    pkg->reference_c = json_string_value(json_object_get(o, "reference.c"));
    pkg->walkthrough_md = json_string_value(json_object_get(o, "walkthrough.md"));
    if (!pkg->problem_json || !pkg->statement_md || !pkg->starter_c || !pkg->reference_c)
        return -1;
    const char *id;
    json_t *v;
    json_object_foreach(json_object_get(o, "mistakes"), id, v)
    {
        if (pkg->n_mistakes >= PROBLEM_MAX_MISTAKES || !json_is_string(v))
            return -1;
        pkg->mistake_id[pkg->n_mistakes] = id;
        pkg->mistake_c[pkg->n_mistakes++] = json_string_value(v);
    }
    size_t i;
    json_array_foreach(json_object_get(o, "hints"), i, v)
    {
        if (i >= PROBLEM_MAX_HINTS || !json_is_string(v))
            return -1;
        pkg->hint_md[i] = json_string_value(v);
        pkg->n_hints = i + 1;
    }
    return 0;
}

/* Makes dir (v<N>/<slug>) from version's package in the database: fetched
 * with s, or with the catalog's own connection when s is NULL. Written to
 * a temporary directory beside it and renamed into place: when another
 * thread or process won the race, its directory is kept. 0, or -1 with a
 * message in msg and errno EAGAIN when the failure may pass (the database
 * unreachable, a write failing): queue.c then gives the claim back instead
 * of recording a verdict. */
int package_materialize(struct catalog *r, struct store *s, const char *slug, int version,
                        const char *dir, char *msg, size_t msglen)
{
    void *data = NULL;
    size_t len = 0;
    int rc = -1, got;
    json_t *tree = NULL;
    struct catalog_package pkg;
    char tmp[PATH_LEN], parent[PATH_LEN];
    static unsigned counter;

    if (!s) {
        if (!r->db_url) {
            snprintf(msg, msglen,
                     "no files of %s version %d here and no database to fetch them from", slug,
                     version);
            return -1;
        }
        pthread_mutex_lock(&r->fetch_lock);
        char err[256] = "";
        if (!r->fetch_store && !(r->fetch_store = store_open(r->db_url, false, err, sizeof err))) {
            pthread_mutex_unlock(&r->fetch_lock);
            snprintf(msg, msglen, "no files of %s version %d here; database: %s", slug, version,
                     err);
            return -1;
        }
        got = store_problem_package(r->fetch_store, slug, version, &data, &len);
        if (got < 0) {
            snprintf(msg, msglen, "no files of %s version %d here; database: %s", slug, version,
                     store_error(r->fetch_store));
            store_close(r->fetch_store); /* reconnects next time */
            r->fetch_store = NULL;
        }
        pthread_mutex_unlock(&r->fetch_lock);
    } else {
        got = store_problem_package(s, slug, version, &data, &len);
        if (got < 0)
            snprintf(msg, msglen, "no files of %s version %d here; database: %s", slug, version,
                     store_error(s));
    }
    if (got < 0) {
        errno = EAGAIN;
        return -1;
    }
    if (got == STORE_NOT_FOUND) {
        snprintf(msg, msglen,
                 "no files of %s version %d here and no package in the database (a version"
                 " recorded before migration 11 gets it from a host that has its files)",
                 slug, version);
        return -1;
    }
    if (unpack(data, len, &tree, &pkg) < 0) {
        snprintf(msg, msglen, "the database's package of %s version %d is malformed", slug,
                 version);
        goto out;
    }
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash)
        *slash = '\0';
    int n = snprintf(tmp, sizeof tmp, "%s/.fetch-%s-%ld-%u", parent, slug, (long)getpid(),
                     __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
    if (n < 0 || (size_t)n >= sizeof tmp || fs_mkdir_p(parent, 0755) < 0 ||
        package_write(tmp, &pkg) < 0) {
        snprintf(msg, msglen, "unpacking %s version %d: %s", slug, version, strerror(errno));
        fs_remove_tree(tmp);
        errno = EAGAIN;
        goto out;
    }
    if (rename(tmp, dir) < 0) {
        int e = errno;
        fs_remove_tree(tmp);
        if (e != EEXIST && e != ENOTEMPTY) {
            snprintf(msg, msglen, "unpacking %s version %d: %s", slug, version, strerror(e));
            errno = EAGAIN;
            goto out;
        }
    }
    fprintf(stderr, "attnjudge: problem %s version %d: unpacked from the database\n", slug,
            version);
    rc = 0;
out:
    json_decref(tree);
    free(data);
    return rc;
}

/* Whether dir (a version directory) is missing here. */
bool package_dir_missing(const char *dir)
{
    struct stat sb;
    return stat(dir, &sb) < 0 && errno == ENOENT;
}

/* Records pkg as the package of (slug, version) inside the caller's
 * transaction. */
int package_record(struct store *s, const char *slug, int version,
                   const struct catalog_package *pkg)
{
    size_t len = 0;
    char *data = pack(pkg, &len);
    if (!data)
        return -1;
    int rc = store_problem_set_package(s, slug, version, data, len);
    free(data);
    return rc;
}

/* Whether the version directory dir holds another package than the one
 * the database records as hash: its stamp (STAMP_FILE, written with the
 * files) differs. That is the leftover of a problem deleted on another
 * host and created anew under the same slug, whose versions start again
 * at 1. A directory without a stamp (written before stamps existed) is
 * taken as it is. */
bool package_dir_stale(const char *dir, const char *hash)
{
    char path[PATH_LEN], stamp[80] = "";
    if (snprintf(path, sizeof path, "%s/" STAMP_FILE, dir) >= (int)sizeof path)
        return false;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, stamp, sizeof stamp - 1);
    close(fd);
    stamp[n > 0 ? n : 0] = '\0';
    return strcmp(stamp, hash) != 0;
}

/* ---- a package directory read back ---- */

void package_files_free(struct package_files *f)
{
    free(f->reference_c);
    for (size_t i = 0; i < PROBLEM_MAX_MISTAKES; i++)
        free(f->mistake_c[i]);
    problem_free(f->p);
    memset(f, 0, sizeof *f);
}

/* Reads the package in dir (its reference.c, or reference_dir's for a
 * package of the problems directory). 0, or -1 with a message in err. */
int package_read(const char *dir, const char *reference_dir, struct package_files *f, char *err,
                 size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (!(f->p = problem_load(dir, reference_dir, err, errlen)))
        return -1;
    struct problem *p = f->p;
    if (!p->reference_path ||
        fs_read_file(p->reference_path, 0, PROBLEM_MAX_FILE, &f->reference_c, NULL) < 0) {
        snprintf(err, errlen, "no readable reference.c");
        goto fail;
    }
    f->pkg = (struct catalog_package){.problem_json = p->json_text,
                                      .statement_md = p->statement_md ? p->statement_md : "",
                                      .starter_c = p->starter_c ? p->starter_c : "",
                                      .reference_c = f->reference_c,
                                      .walkthrough_md = p->walkthrough_md};
    for (size_t i = 0; i < p->n_mistakes; i++) {
        if (fs_read_file(p->mistakes[i].path, O_NOFOLLOW, PROBLEM_MAX_FILE, &f->mistake_c[i],
                         NULL) < 0) {
            snprintf(err, errlen, "mistakes/%s.c: %s", p->mistakes[i].id, strerror(errno));
            goto fail;
        }
        f->pkg.mistake_id[i] = p->mistakes[i].id;
        f->pkg.mistake_c[i] = f->mistake_c[i];
        f->pkg.n_mistakes = i + 1;
    }
    for (size_t i = 0; i < p->n_hints; i++)
        f->pkg.hint_md[i] = p->hints[i];
    f->pkg.n_hints = p->n_hints;
    return 0;
fail:
    package_files_free(f);
    return -1;
}
