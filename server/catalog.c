/*
 * catalog — theory of operation.
 *
 * Versions are immutable: a submission records (slug, version) and is judged
 * against exactly that package, even after an instructor replaces it. So
 * every version, whether imported from the problems directory at start-up or
 * uploaded over HTTP, is copied to <data>/problems/v<N>/<slug>/ (the last
 * path component must equal the slug, as problem_load requires) with its own
 * reference.c, and recorded in the database in the same step.
 *
 * Order of an upload, under one mutex (uploads are rare and slow):
 *   1. parse the slug out of problem.json; N = current + 1;
 *   2. write the files to v<N>/<slug>/ (removing a leftover of a crash
 *      between steps 2 and 4, which the database never recorded);
 *   3. validate: problem_load, the statement renders, the reference judged
 *      as a submission is accepted on every test, the starter compiles;
 *   4. record version N in one transaction; on any failure remove the
 *      directory. Only then does the registry show the new version.
 *
 * Hosts share no filesystem: the files of every version are also recorded
 * in the database as one package (a JSON object of file name to text,
 * pack()) in the transaction of step 4 (and of a directory import). A
 * host that lacks v<N>/<slug>/ (another host recorded it, or its data
 * directory is fresh) fetches the package and unpacks it into a temporary
 * directory renamed into place (materialize), so two threads or processes
 * doing it at once both end with one complete directory. Versions recorded
 * before migration 11 have no package until a host that has their files
 * records it (backfill, at its next refresh).
 *
 * Other hosts change the catalog too: every front end and judge host calls
 * catalog_refresh every CATALOG_REFRESH_MS, which reads the version rows
 * (one query; a digest of them says whether anything changed) and brings
 * the registry in line: new versions, states, deleted problems. Versions
 * restart at 1 when a problem is deleted and made anew under the same
 * slug, so (slug, version) alone does not name a package across time:
 * every version directory carries the content hash of its package
 * (STAMP_FILE), and a directory or a loaded version whose hash is not the
 * database's is dropped and fetched again.
 *
 * The registry caches the loaded `struct problem` of every version it has
 * served and the JSON bodies of the two GET routes for current versions;
 * a read-write lock lets many HTTP threads read at once.
 */
#include "server/catalog.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include <jansson.h>
#include <sodium.h>

#include "judge/check.h"
#include "judge/harness.h"
#include "judge/markdown.h"
#include "judge/path.h"
#include "judge/samples.h"
#include "server/mathcheck.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/isotime.h"

#define PATH_LEN 4096
/* In every version directory: the content hash of the package written
 * there, as the database records it (dir_stale). */
#define STAMP_FILE ".package-hash"

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

/* ---- files ---- */

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

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

static int remove_tree(const char *path)
{
    if (access(path, F_OK) < 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Returns -1 if the path does not fit (a data_dir near PATH_MAX). */
static int version_dir(const struct catalog *r, const char *slug, int version, char *buf,
                       size_t len)
{
    int n = snprintf(buf, len, "%s/problems/v%d/%s", r->data_dir, version, slug);
    return n < 0 || (size_t)n >= len ? -1 : 0;
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

static void hash_package(const struct catalog_package *pkg, char out[65])
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
 * the package's content hash in its stamp file (dir_stale). */
static int write_package(const char *dir, const struct catalog_package *pkg)
{
    int rc = -1, fd = -1;
    char hash[65];
    hash_package(pkg, hash);
    if (remove_tree(dir) < 0 || fs_mkdir_p(dir, 0755) < 0)
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
static int materialize(struct catalog *r, struct store *s, const char *slug, int version,
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
        write_package(tmp, &pkg) < 0) {
        snprintf(msg, msglen, "unpacking %s version %d: %s", slug, version, strerror(errno));
        remove_tree(tmp);
        errno = EAGAIN;
        goto out;
    }
    if (rename(tmp, dir) < 0) {
        int e = errno;
        remove_tree(tmp);
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
static bool dir_missing(const char *dir)
{
    struct stat sb;
    return stat(dir, &sb) < 0 && errno == ENOENT;
}

/* Records pkg as the package of (slug, version) inside the caller's
 * transaction. */
static int record_package(struct store *s, const char *slug, int version,
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

/* ---- JSON bodies ---- */

static json_t *str_array(char **v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(v[i]))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *limits_json(const struct problem_limits *l)
{
    return json_pack("{s:I, s:I, s:I}", "cpu_ms", (json_int_t)l->cpu_ms, "wall_ms",
                     (json_int_t)l->wall_ms, "memory_mb", (json_int_t)l->memory_mb);
}

static const char *dim_name(const struct problem *p, int d)
{
    for (int i = 0; i < p->n_params; i++)
        if (p->params[i].kind == PARAM_INT && p->params[i].dim_index == d)
            return p->params[i].name;
    return "?";
}

/* The package's benchmark sizes, public (their inputs are fresh random
 * data at every call, docs/performance.md): {"flops", "bytes", "sizes":
 * [{"name", "dims"}]}, or null when it lists none. */
static json_t *benchmark_json(const struct problem *p)
{
    if (!p->bench.n_sizes)
        return json_null();
    json_t *sizes = json_array();
    for (size_t i = 0; sizes && i < p->bench.n_sizes; i++) {
        const struct test_case *tc = &p->bench.sizes[i];
        json_t *dims = json_object();
        for (int d = 0; dims && d < p->n_dims; d++)
            if (json_object_set_new(dims, dim_name(p, d), json_integer(tc->dims[d])))
                break;
        if (json_array_append_new(sizes, json_pack("{s:s, s:o*}", "name", tc->name, "dims", dims)) <
            0) {
            json_decref(sizes);
            sizes = NULL;
        }
    }
    json_t *o = sizes ? json_pack("{s:s, s:s, s:o}", "flops", p->bench.flops_text, "bytes",
                                  p->bench.bytes_text, "sizes", sizes)
                      : NULL;
    return o ? o : json_null();
}

/* Sets "scalars" on o to tc's float parameter values, if p has any: a
 * sample case must be reproducible from what the API shows. 0 or -1. */
static int scalars_json(const struct problem *p, const struct test_case *tc, json_t *o)
{
    json_t *sj = NULL;
    for (int i = 0; i < p->n_params; i++) {
        if (p->params[i].kind != PARAM_FLOAT)
            continue;
        if (!sj && (!(sj = json_object()) || json_object_set_new(o, "scalars", sj) < 0))
            return -1;
        if (json_object_set_new(sj, p->params[i].name, json_real(tc->scalars[i])) < 0)
            return -1;
    }
    return 0;
}

static json_t *detail_json(const struct problem *p, int version)
{
    json_t *o = NULL, *params = NULL, *tests = NULL;
    char *html = NULL, proto[2048];
    if (harness_prototype(p, proto, sizeof proto - 1) < 0)
        snprintf(proto, sizeof proto, "void %s(...)", p->function);
    else
        strcat(proto, ";");
    if (!(html = markdown_html(p->statement_md ? p->statement_md : "",
                               p->statement_md ? strlen(p->statement_md) : 0)))
        goto fail;
    if (!(params = json_array()) || !(tests = json_array()))
        goto fail;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *pa = &p->params[i];
        json_t *x;
        if (pa->kind == PARAM_INT) {
            x = json_pack("{s:s, s:s}", "name", pa->name, "type", "int");
        } else if (pa->kind == PARAM_FLOAT) {
            x = json_pack("{s:s, s:s, s:f}", "name", pa->name, "type", problem_scalar_ctype(pa),
                          "value", pa->value);
        } else {
            json_t *shape = json_array();
            for (int k = 0; shape && k < pa->rank; k++)
                if (json_array_append_new(shape, json_string(pa->shape_text[k])))
                    break;
            x = json_pack("{s:s, s:s, s:s, s:o, s:b}", "name", pa->name, "type",
                          tensor_dtype_name(pa->dtype), "role", problem_role_name(pa->role),
                          "shape", shape, "nullable", pa->nullable);
        }
        if (!x || json_array_append_new(params, x))
            goto fail;
    }
    for (size_t t = 0; t < p->n_tests; t++) {
        const struct test_case *tc = &p->tests[t];
        json_t *dims = json_object(), *x;
        for (int d = 0; dims && d < p->n_dims; d++)
            if (json_object_set_new(dims, dim_name(p, d), json_integer(tc->dims[d])))
                break;
        x = json_pack("{s:s, s:s, s:o, s:i, s:o}", "name", tc->name, "kind",
                      problem_test_kind_name(tc->kind), "dims", dims, "weight", tc->weight,
                      "limits", limits_json(&tc->limits));
        /* Sample seeds are public (docs/contract.md §4); hidden seeds never leave. */
        if (x && tc->kind == TEST_SAMPLE && tc->has_seed)
            json_object_set_new(x, "seed", json_integer((json_int_t)tc->seed));
        if (x && tc->kind == TEST_SAMPLE && scalars_json(p, tc, x) < 0) {
            json_decref(x);
            goto fail;
        }
        if (!x || json_array_append_new(tests, x))
            goto fail;
    }
    o = json_pack("{s:s, s:i, s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:s, s:s, s:o,"
                  " s:{s:f, s:f, s:b}, s:o, s:{s:i}, s:{s:b}}",
                  "slug", p->slug, "version", version, "title", p->title ? p->title : p->slug,
                  "difficulty", p->difficulty ? p->difficulty : "", "tags",
                  str_array(p->tags, p->n_tags), "prerequisites",
                  str_array(p->prereqs, p->n_prereqs), "function", p->function, "signature", proto,
                  "statement_md", p->statement_md ? p->statement_md : "", "statement_html", html,
                  "starter_c", p->starter_c ? p->starter_c : "", "params", params, "tolerance",
                  "atol", p->tol.atol, "rtol", p->tol.rtol, "atol_relative_to_max",
                  p->tol.atol_relative_to_max, "limits", limits_json(&p->limits), "hints", "count",
                  (int)p->n_hints, "walkthrough", "available", p->walkthrough_md != NULL);
    params = NULL;
    if (!o)
        goto fail;
    if (json_object_set_new(o, "tests", tests)) {
        tests = NULL;
        goto fail;
    }
    if (json_object_set_new(o, "benchmark", benchmark_json(p)) < 0) {
        json_decref(o);
        o = NULL;
    }
    free(html);
    return o;
fail:
    free(html);
    json_decref(params);
    json_decref(tests);
    json_decref(o);
    return NULL;
}

static struct entry *find(struct catalog *r, const char *slug)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->e[i].slug, slug))
            return &r->e[i];
    return NULL;
}

static struct loaded *loaded_version(struct entry *e, int version)
{
    for (size_t k = 0; k < e->n_v; k++)
        if (e->v[k].version == version)
            return &e->v[k];
    return NULL;
}

static struct problem *loaded(struct entry *e, int version)
{
    struct loaded *l = loaded_version(e, version);
    return l ? l->p : NULL;
}

static struct entry *add_entry(struct catalog *r, const char *slug)
{
    struct entry *e = find(r, slug);
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

static int add_loaded(struct entry *e, int version, struct problem *p)
{
    if (ARRAY_RESERVE(e->v, e->n_v, e->cap_v, 4) < 0)
        return -1;
    e->v[e->n_v++] = (struct loaded){.version = version, .p = p};
    return 0;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->slug, ((const struct entry *)b)->slug);
}

/* Puts the entries in path order (judge/path.h) of their current versions;
 * entries whose current version did not load go last, by slug. Returns 0,
 * or -1 when out of memory (the entries are then in slug order). */
static int order_entries(struct catalog *r)
{
    const struct problem **ps = NULL;
    size_t *idx = NULL, *order = NULL, n = 0, k = 0;
    struct entry *sorted = NULL;
    int rc = -1;

    qsort(r->e, r->n, sizeof *r->e, cmp_entry);
    if (r->n < 2)
        return 0;
    if (!(ps = calloc(r->n, sizeof *ps)) || !(idx = calloc(r->n, sizeof *idx)) ||
        !(order = calloc(r->n, sizeof *order)) || !(sorted = calloc(r->n, sizeof *sorted)))
        goto out;
    for (size_t i = 0; i < r->n; i++) {
        struct problem *p = loaded(&r->e[i], r->e[i].current);
        if (p) {
            ps[n] = p;
            idx[n++] = i;
        }
    }
    if (path_order(ps, n, order) < 0)
        goto out;
    for (size_t i = 0; i < n; i++)
        sorted[k++] = r->e[idx[order[i]]];
    for (size_t i = 0; i < r->n; i++)
        if (!loaded(&r->e[i], r->e[i].current))
            sorted[k++] = r->e[i];
    memcpy(r->e, sorted, r->n * sizeof *r->e);
    rc = 0;
out:
    free(ps);
    free(idx);
    free(order);
    free(sorted);
    return rc;
}

/* The cached bodies built for the registry's current state, not yet in
 * use: detail[i] belongs to r->e[i] (NULL: keep what it has). */
struct bodies {
    char **detail, **item;
    size_t *detail_len, *item_len;
    size_t n;
};

static void bodies_free(struct bodies *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->detail ? b->detail[i] : NULL);
        free(b->item ? b->item[i] : NULL);
    }
    free(b->detail);
    free(b->detail_len);
    free(b->item);
    free(b->item_len);
    memset(b, 0, sizeof *b);
}

/* Adds an entry's state and publish_at (ISO 8601 or null) to o. */
static int state_json(const struct entry *e, json_t *o)
{
    char when[ISOTIME_LEN];
    json_t *at = e->publish_at > 0 && isotime_format(e->publish_at, when) == 0 ? json_string(when)
                                                                               : json_null();
    return json_object_set_new(o, "state", json_string(e->state)) ||
                   json_object_set_new(o, "publish_at", at)
               ? -1
               : 0;
}

/* Builds the bodies of the registry's state into b, changing nothing in
 * use but the entries' order; caller holds the write lock. */
static int bodies_build(struct catalog *r, struct bodies *b)
{
    int rc = -1;
    memset(b, 0, sizeof *b);
    if (order_entries(r) < 0)
        goto out;
    b->n = r->n;
    if (r->n && (!(b->detail = calloc(r->n, sizeof *b->detail)) ||
                 !(b->detail_len = calloc(r->n, sizeof *b->detail_len)) ||
                 !(b->item = calloc(r->n, sizeof *b->item)) ||
                 !(b->item_len = calloc(r->n, sizeof *b->item_len))))
        goto out;
    for (size_t i = 0; i < r->n; i++) {
        struct entry *e = &r->e[i];
        struct problem *p = loaded(e, e->current);
        if (!p)
            continue; /* its current version failed to load: not offered */
        json_t *d = detail_json(p, e->current);
        if (d && state_json(e, d) < 0) {
            json_decref(d);
            d = NULL;
        }
        if (!d) {
            fprintf(stderr, "attnjudge: problem %s: cannot describe it (out of memory?)\n",
                    e->slug);
            continue;
        }
        b->detail[i] = json_dumps(d, JSON_COMPACT | JUDGE_JSON_REALS);
        json_decref(d);
        if (!b->detail[i])
            goto out;
        b->detail_len[i] = strlen(b->detail[i]);
        json_t *x = json_pack(
            "{s:s, s:s, s:s, s:o, s:o, s:i, s:i}", "slug", p->slug, "title",
            p->title ? p->title : p->slug, "difficulty", p->difficulty ? p->difficulty : "", "tags",
            str_array(p->tags, p->n_tags), "prerequisites", str_array(p->prereqs, p->n_prereqs),
            "version", e->current, "n_tests", (int)p->n_tests);
        if (x && state_json(e, x) == 0)
            b->item[i] = json_dumps(x, JSON_COMPACT | JUDGE_JSON_REALS);
        json_decref(x);
        if (!b->item[i])
            goto out;
        b->item_len[i] = strlen(b->item[i]);
    }
    rc = 0;
out:
    if (rc != 0)
        bodies_free(b);
    return rc;
}

/* Puts b in use (cannot fail); b is emptied. Caller holds the write lock
 * and has not reordered the entries since bodies_build. */
static void bodies_publish(struct catalog *r, struct bodies *b)
{
    for (size_t i = 0; i < b->n && i < r->n; i++) {
        if (!b->detail[i])
            continue;
        free(r->e[i].detail);
        r->e[i].detail = b->detail[i];
        r->e[i].detail_len = b->detail_len[i];
        b->detail[i] = NULL;
        free(r->e[i].item);
        r->e[i].item = b->item[i];
        r->e[i].item_len = b->item_len[i];
        b->item[i] = NULL;
    }
    bodies_free(b);
}

/* Rebuilds the cached bodies; caller holds the write lock. On failure the
 * bodies in use are left as they were. */
static int rebuild(struct catalog *r)
{
    struct bodies b;
    if (bodies_build(r, &b) < 0)
        return -1;
    bodies_publish(r, &b);
    return 0;
}

/* ---- start-up ---- */

/* The files of a package directory read into a catalog_package (pkg's
 * strings borrow from p and the other fields). */
struct package_files {
    struct problem *p;
    char *reference_c;
    char *mistake_c[PROBLEM_MAX_MISTAKES];
    struct catalog_package pkg;
};

static void package_files_free(struct package_files *f)
{
    free(f->reference_c);
    for (size_t i = 0; i < PROBLEM_MAX_MISTAKES; i++)
        free(f->mistake_c[i]);
    problem_free(f->p);
    memset(f, 0, sizeof *f);
}

/* Reads the package in dir (its reference.c, or reference_dir's for a
 * package of the problems directory). 0, or -1 with a message in err. */
static int package_read(const char *dir, const char *reference_dir, struct package_files *f,
                        char *err, size_t errlen)
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
    hash_package(&f.pkg, hash);
    struct sync_state st = {.slug = p->slug};
    if (store_problem_versions(s, note_version, &st) < 0) {
        fprintf(stderr, "attnjudge: database: %s\n", store_error(s));
        rc = -1;
        goto out;
    }
    if (!strcmp(st.dir_hash, hash) || !strcmp(st.current_hash, hash))
        goto out; /* unchanged since its import, or identical to the current */
    if (version_dir(r, p->slug, st.current + 1, vdir, sizeof vdir) < 0 ||
        write_package(vdir, &f.pkg) < 0) {
        fprintf(stderr, "attnjudge: cannot write %s: %s\n", vdir, strerror(errno));
        rc = -1;
        goto out;
    }
    if (store_begin(s) < 0 ||
        store_problem_add_version(s, p->slug, p->title ? p->title : p->slug, hash, "directory", 0,
                                  false, clock_wall_ms(), &version) != 0 ||
        record_package(s, p->slug, version, &f.pkg) != 0 || store_commit(s) < 0) {
        fprintf(stderr, "attnjudge: database: %s\n", store_error(s));
        store_rollback(s);
        remove_tree(vdir);
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

/* Whether the version directory dir holds another package than the one
 * the database records as hash: its stamp (STAMP_FILE, written with the
 * files) differs. That is the leftover of a problem deleted on another
 * host and created anew under the same slug, whose versions start again
 * at 1. A directory without a stamp (written before stamps existed) is
 * taken as it is. */
static bool dir_stale(const char *dir, const char *hash)
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

static int bury(struct catalog *r, struct entry *e);

/* Removes this host's directories of slug's versions 1 to last. */
static void remove_dirs(struct catalog *r, const char *slug, int last)
{
    for (int v = 1; v <= last; v++) {
        char dir[PATH_LEN];
        if (version_dir(r, slug, v, dir, sizeof dir) == 0 && remove_tree(dir) < 0)
            fprintf(stderr, "attnjudge: problem %s: cannot remove %s: %s\n", slug, dir,
                    strerror(errno));
    }
}

/* Records the package of a version made before packages were kept in the
 * database (migration 11) from this host's files of it, when they are
 * what the database says the version is. */
static void backfill(struct catalog *r, struct store *s, const struct version_row *row)
{
    char dir[PATH_LEN], err[PROBLEM_ERR_LEN], hash[65];
    struct package_files f;
    if (version_dir(r, row->slug, row->version, dir, sizeof dir) < 0 || dir_missing(dir) ||
        package_read(dir, NULL, &f, err, sizeof err) < 0)
        return; /* another host may have the files */
    hash_package(&f.pkg, hash);
    if (!strcmp(hash, row->hash)) {
        if (store_begin(s) < 0 || record_package(s, row->slug, row->version, &f.pkg) != 0 ||
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
        if (version_dir(r, row->slug, row->version, dir, sizeof dir) == 0 &&
            dir_stale(dir, row->hash)) {
            row->stale = true;
            remove_tree(dir);
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
        if (bury(r, e) < 0) {
            e->current = 0; /* not offered; retried at the next change */
            i++;
        }
        remove_dirs(r, slug, last);
        fprintf(stderr, "attnjudge: problem %s: changed or deleted by another host, reloaded\n",
                slug);
    }
    for (size_t i = 0; i < rs->n; i++) {
        const struct version_row *row = &rs->v[i];
        struct entry *e;
        if (row->version != row->current || !(e = add_entry(r, row->slug)))
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
    if (rebuild(r) < 0)
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

/* ---- lookups ---- */

const struct problem *catalog_get(struct catalog *r, const char *slug, int version, char *err,
                                  size_t errlen)
{
    struct problem *p = NULL;
    pthread_rwlock_rdlock(&r->lock);
    struct entry *e = find(r, slug);
    if (e)
        p = loaded(e, version);
    pthread_rwlock_unlock(&r->lock);
    if (p)
        return p;
    char dir[PATH_LEN], msg[PROBLEM_ERR_LEN] = "path too long";
    bool dir_ok = version_dir(r, slug, version, dir, sizeof dir) == 0;
    int fetch_errno = 0;
    if (dir_ok && dir_missing(dir) &&
        materialize(r, NULL, slug, version, dir, msg, sizeof msg) < 0) {
        fetch_errno = errno;
        dir_ok = false;
    }
    pthread_rwlock_wrlock(&r->lock);
    if (!(e = add_entry(r, slug))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if ((p = loaded(e, version)))
        goto out;
    if (!dir_ok || !(p = problem_load(dir, NULL, msg, sizeof msg))) {
        snprintf(err, errlen, "problem %s version %d: %s", slug, version, msg);
        goto out;
    }
    if (add_loaded(e, version, p) < 0) {
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
    struct entry *e = find(r, slug);
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
    struct entry *e = find(r, slug);
    struct loaded *l = e ? loaded_version(e, version) : NULL;
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
    struct entry *e = find(r, slug);
    struct loaded *l = e ? loaded_version(e, version) : NULL;
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
    struct entry *e = find(r, slug);
    if (e && visible(e, all, now))
        d = dup_len(e->detail, e->detail_len, len);
    pthread_rwlock_unlock(&r->lock);
    return d;
}

int catalog_access(struct catalog *r, const char *slug, bool all, int64_t now)
{
    int rc = CATALOG_NOT_FOUND;
    pthread_rwlock_rdlock(&r->lock);
    struct entry *e = find(r, slug);
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
    struct entry *e = find(r, slug);
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
    if (rebuild(r) < 0)
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
static int bury(struct catalog *r, struct entry *e)
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
    struct entry *e = find(r, slug);
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
    if (bury(r, e) < 0) {
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
        remove_dirs(r, slug, last);
    }
    pthread_mutex_unlock(&r->upload_lock);
    return rc;
}

/* ---- uploads ---- */

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
    struct entry *e = find(r, slug);
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
    if (version_dir(r, slug, v, dir, sizeof dir) < 0 || write_package(dir, pkg) < 0) {
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
    hash_package(pkg, hash);
    rc = -1;
    int got = 0;
    if (store_begin(s) < 0 ||
        store_problem_add_version(s, slug, p->title ? p->title : slug, hash, "upload", user_id,
                                  false, clock_wall_ms(), &got) != 0 ||
        got != v || record_package(s, slug, v, pkg) != 0 ||
        (pkg->state && store_problem_set_state(s, slug, pkg->state, 0) != 0)) {
        snprintf(err, errlen, "database: %s", store_error(s));
        store_rollback(s);
        goto out;
    }
    /* The registry takes the version before the commit and gives it back
     * if anything fails, the commit included: the database and GET
     * /api/problems never disagree. Readers wait meanwhile (one commit). */
    pthread_rwlock_wrlock(&r->lock);
    struct entry *e = find(r, slug);
    bool created = !e;
    int current_before = e ? e->current : 0;
    struct bodies b = {0};
    bool added = (e || (e = add_entry(r, slug))) && add_loaded(e, v, p) == 0;
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
    bool built = added && bodies_build(r, &b) == 0;
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
        bodies_free(&b);
        pthread_rwlock_unlock(&r->lock);
        store_rollback(s);
        goto out;
    }
    bodies_publish(r, &b);
    p = NULL; /* owned by the registry now */
    pthread_rwlock_unlock(&r->lock);
    snprintf(slug_out, slug_len, "%s", slug);
    dir_made = false;
    *version = v;
    rc = 0;
out:
    if (dir_made)
        remove_tree(dir);
    pthread_mutex_unlock(&r->upload_lock);
    problem_free(p);
    json_decref(meta);
    return rc;
}
