/*
 * problem — loading a problem package, and the queries on the loaded
 * struct.
 *
 * Theory of operation. problem_load() reads problems/<slug>/problem.json,
 * statement.md and starter.c (each at most PROBLEM_MAX_FILE bytes), the
 * optional hints/N.md and walkthrough.md (texts the server shows, never
 * the judge) and the known mistakes' files, and has problem.json checked
 * against docs/problem-format.md by judge/problem_load.c, which resolves
 * everything (shapes, constraints, generators, limits, dims). The judge
 * and the server then use the struct without re-checking anything.
 *
 * A load goes on past an error to the parts of the package that do not
 * depend on it, so that one run reports every error (struct
 * problem_errors); any error still fails the load. Every message names
 * the offending field or file, e.g. "params[3].shape[1]: unknown dimension
 * 'Tk'". Nothing here runs package code; the reference is only located.
 *
 * The struct is immutable after loading and may be shared between threads.
 */
#include "judge/problem.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include <jansson.h>

#include "judge/dims.h"
#include "judge/jsonget.h"
#include "judge/names.h"
#include "judge/problem_load.h"
#include "util/fs.h"

/* Reads a package file of at most max bytes into a new NUL-terminated
 * buffer; flags are added to open()'s (O_NOFOLLOW). Refuses non-regular
 * files (a FIFO would block the server) and NUL bytes (the contents are
 * used as C strings). */
static char *read_text_file(const char *path, const char *label, int flags, size_t max,
                            size_t *len_out, struct problem_loader *ld)
{
    char *buf = NULL;
    size_t len = 0;

    if (fs_read_file(path, flags, max, &buf, &len) != 0) {
        if (errno == ENOENT)
            problem_loader_bad(ld, "%s: missing", label);
        else if (errno == EINVAL || errno == ELOOP)
            problem_loader_bad(ld, "%s: not a regular file", label);
        else if (errno == EFBIG)
            problem_loader_bad(ld, "%s: larger than %zu bytes", label, max);
        else
            problem_loader_bad(ld, "%s: %s", label, strerror(errno));
        return NULL;
    }
    if (memchr(buf, '\0', len)) {
        problem_loader_bad(ld, "%s: contains a NUL byte", label);
        free(buf);
        return NULL;
    }
    if (len_out)
        *len_out = len;
    return buf;
}

/* ---- the package ------------------------------------------------------ */

static char *path_join(const char *dir, const char *name)
{
    char *s;

    if (asprintf(&s, "%s/%s", dir, name) < 0)
        return NULL;
    return s;
}

static bool is_regular_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads the package's text file name (statement.md, starter.c, a hint, the
 * walkthrough): text the server later puts in JSON, so it must be valid
 * UTF-8 (jansson refuses to build a string that is not). */
static char *read_text(struct problem_loader *ld, const char *dir, const char *name, int flags,
                       size_t max)
{
    char *path = path_join(dir, name), *text = NULL;
    size_t len = 0;
    json_t *probe;

    if (!path) {
        problem_loader_bad(ld, "out of memory");
        return NULL;
    }
    text = read_text_file(path, name, flags, max, &len, ld);
    free(path);
    if (!text)
        return NULL;
    probe = json_stringn(text, len);
    if (!probe) {
        problem_loader_bad(ld, "%s: not valid UTF-8", name);
        free(text);
        return NULL;
    }
    json_decref(probe);
    return text;
}

static char *read_package_text(struct problem_loader *ld, const char *dir, const char *name)
{
    return read_text(ld, dir, name, 0, PROBLEM_MAX_FILE);
}

static int load_reference(struct problem_loader *ld, const char *dir, const char *reference_dir)
{
    struct problem *p = ld->p;
    char *path = path_join(dir, "reference.c");

    if (!path)
        return problem_loader_bad(ld, "out of memory");
    if (!is_regular_file(path) && reference_dir && p->slug) {
        free(path);
        if (asprintf(&path, "%s/%s.c", reference_dir, p->slug) < 0)
            return problem_loader_bad(ld, "out of memory");
    }
    if (is_regular_file(path))
        p->reference_path = path;
    else
        free(path);
    return 0;
}

/* ---- known mistakes --------------------------------------------------- */

/* A mistake's title or hint at path.key: required, non-empty, at most max
 * bytes (it is shown to students in one line above the heatmap). */
static int load_mistake_text(struct problem_loader *ld, json_t *jm, const char *path,
                             const char *key, size_t max, char **out)
{
    const char *v;

    if (jsonget_string(jm, path, key, true, &v, ld->err, ld->errlen) != 0)
        return -1;
    if (*v == '\0')
        return problem_loader_bad(ld, "%s.%s: must not be empty", path, key);
    if (strlen(v) > max)
        return problem_loader_bad(ld, "%s.%s: longer than %zu bytes", path, key, max);
    *out = problem_loader_strdup(ld, v);
    return *out ? 0 : -1;
}

/* mistakes[i]: its id, title and hint, and its C file
 * <dir>/mistakes/<id>.c, read once here through the reader the judge uses
 * for the reference (no symlink, a regular file of at most
 * PROBLEM_MAX_FILE bytes) so that a package naming a missing file fails at
 * load, not at a student's submission. */
static int load_mistake(struct problem_loader *ld, json_t *jm, size_t i, const char *dir)
{
    static const char *const keys[] = {"id", "title", "hint", NULL};
    struct problem *p = ld->p;
    struct problem_mistake *m = &p->mistakes[i];
    char path[JSONGET_PATH_LEN];
    const char *id;
    char *src = NULL;

    jsonget_path_index(path, "mistakes", i);
    if (!json_is_object(jm))
        return problem_loader_bad(ld, "%s: must be an object", path);
    if (jsonget_keys(jm, path, keys, ld->err, ld->errlen) != 0 ||
        jsonget_string(jm, path, "id", true, &id, ld->err, ld->errlen) != 0)
        return -1;
    /* the id names a file and appears in reports: a slug's alphabet */
    if (!names_slug_valid(id))
        return problem_loader_bad(ld, "%s.id: '%s' must match [a-z0-9][a-z0-9-]{0,62}", path, id);
    for (size_t k = 0; k < i; k++)
        if (p->mistakes[k].id && strcmp(p->mistakes[k].id, id) == 0)
            return problem_loader_bad(ld, "%s.id: duplicate mistake '%s' (also mistakes[%zu])",
                                      path, id, k);
    if (!(m->id = problem_loader_strdup(ld, id)))
        return -1;
    if (load_mistake_text(ld, jm, path, "title", PROBLEM_MISTAKE_TITLE_MAX, &m->title) != 0 ||
        load_mistake_text(ld, jm, path, "hint", PROBLEM_MISTAKE_HINT_MAX, &m->hint) != 0)
        return -1;
    if (asprintf(&m->path, "%s/mistakes/%s.c", dir, id) < 0) {
        m->path = NULL;
        return problem_loader_bad(ld, "out of memory");
    }
    if (fs_read_file(m->path, O_NOFOLLOW, PROBLEM_MAX_FILE, &src, NULL) != 0) {
        int e = errno;
        return problem_loader_bad(ld, "%s: mistakes/%s.c: %s", path, id,
                                  e == ENOENT                 ? "missing"
                                  : e == EFBIG                ? "larger than a package file may be"
                                  : e == EINVAL || e == ELOOP ? "not a regular file"
                                                              : strerror(e));
    }
    free(src);
    return 0;
}

/* problem.json's optional "mistakes" array, each entry checked on its own. */
static int load_mistakes(struct problem_loader *ld, json_t *arr, const char *dir)
{
    struct problem *p = ld->p;
    size_t i;
    json_t *jm;
    int rc = 0;

    if (!arr)
        return 0;
    if (!json_is_array(arr))
        return problem_loader_bad(ld, "mistakes: must be an array of objects");
    if (json_array_size(arr) > PROBLEM_MAX_MISTAKES)
        return problem_loader_bad(ld, "mistakes: more than %d entries", PROBLEM_MAX_MISTAKES);
    p->mistakes = calloc(json_array_size(arr) + 1, sizeof *p->mistakes);
    if (!p->mistakes)
        return problem_loader_bad(ld, "out of memory");
    json_array_foreach(arr, i, jm)
    {
        p->n_mistakes = i + 1;
        if (load_mistake(ld, jm, i, dir) != 0) {
            problem_loader_note(ld);
            rc = -1;
        }
    }
    return rc;
}

/* ---- hints and walkthrough ------------------------------------------- */

/* 1 to PROBLEM_MAX_HINTS for a hint file's name "N.md"; 0 for any other
 * name ("01.md", "10.md", "1.MD", "hint1.md"). */
static int hint_number(const char *name)
{
    if (name[0] >= '1' && name[0] <= '0' + PROBLEM_MAX_HINTS && strcmp(name + 1, ".md") == 0)
        return name[0] - '0';
    return 0;
}

/* A directory entry's name fit for a message (it may hold any byte but '/'
 * and NUL): printable ASCII, other bytes as '?', at most len - 1 bytes. */
static void printable_name(const char *name, char *out, size_t len)
{
    size_t i = 0;

    for (; name[i] && i + 1 < len; i++)
        out[i] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
    out[i] = '\0';
}

/* True if s holds something besides white space. */
static bool has_text(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return true;
    return false;
}

/* The optional hints/ directory: 1.md, 2.md, ... numbered without gaps, at
 * most PROBLEM_MAX_HINTS, and nothing else: a stray file is a typo
 * ("hint3.md", "4.MD") that would otherwise drop a hint without a word.
 * Each hint is a regular file (no symbolic link) of at most
 * PROBLEM_HINT_MAX bytes of UTF-8 with some text in it. */
static int load_hints(struct problem_loader *ld, const char *dir)
{
    struct problem *p = ld->p;
    bool seen[PROBLEM_MAX_HINTS + 1] = {false};
    char *hdir = path_join(dir, "hints"), name[80];
    struct dirent *de;
    DIR *d = NULL;
    int fd = -1, rc = -1;
    size_t n = 0;

    if (!hdir)
        return problem_loader_bad(ld, "out of memory");
    if ((fd = open(hdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        if (errno == ENOENT)
            rc = 0; /* no hints */
        else if (errno == ENOTDIR || errno == ELOOP)
            problem_loader_bad(ld, "hints: not a directory");
        else
            problem_loader_bad(ld, "hints: %s", strerror(errno));
        goto out;
    }
    if (!(d = fdopendir(fd))) {
        problem_loader_bad(ld, "hints: %s", strerror(errno));
        goto out;
    }
    fd = -1; /* the stream owns it */
    for (errno = 0; (de = readdir(d)) != NULL; errno = 0) {
        int k;

        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if ((k = hint_number(de->d_name)) == 0) {
            printable_name(de->d_name, name, sizeof name);
            problem_loader_bad(
                ld, "hints/%s: not a hint file (hints are hints/1.md, hints/2.md, ... at most %d)",
                name, PROBLEM_MAX_HINTS);
            goto out;
        }
        seen[k] = true;
        n++;
    }
    if (errno != 0) {
        problem_loader_bad(ld, "hints: %s", strerror(errno));
        goto out;
    }
    /* n distinct numbers that are not 1..n leave a gap at or below n */
    for (size_t k = 1; k <= n; k++)
        if (!seen[k]) {
            problem_loader_bad(
                ld, "hints/%zu.md: missing (hints are numbered 1, 2, ... without gaps)", k);
            goto out;
        }
    for (size_t k = 0; k < n; k++) {
        snprintf(name, sizeof name, "hints/%zu.md", k + 1);
        if (!(p->hints[k] = read_text(ld, dir, name, O_NOFOLLOW, PROBLEM_HINT_MAX)))
            goto out;
        p->n_hints = k + 1;
        if (!has_text(p->hints[k])) {
            problem_loader_bad(ld, "%s: empty", name);
            goto out;
        }
    }
    rc = 0;
out:
    if (d)
        closedir(d);
    if (fd >= 0)
        close(fd);
    free(hdir);
    return rc;
}

/* The optional walkthrough.md (a regular file, no symbolic link, UTF-8,
 * not empty). problem.json's walkthrough_opens_at needs one. */
static int load_walkthrough(struct problem_loader *ld, const char *dir)
{
    struct problem *p = ld->p;
    char *path = path_join(dir, "walkthrough.md");
    struct stat st;
    bool absent;

    if (!path)
        return problem_loader_bad(ld, "out of memory");
    absent = lstat(path, &st) != 0 && errno == ENOENT;
    free(path);
    if (absent)
        return p->walkthrough_opens_at
                   ? problem_loader_bad(ld,
                                        "walkthrough_opens_at: the package has no walkthrough.md")
                   : 0;
    if (!(p->walkthrough_md = read_text(ld, dir, "walkthrough.md", O_NOFOLLOW, PROBLEM_MAX_FILE)))
        return -1;
    if (!has_text(p->walkthrough_md))
        return problem_loader_bad(ld, "walkthrough.md: empty");
    return 0;
}

/* problem_load with problem.json's text (len bytes, copied) and its parse
 * either supplied (root) or read from dir (text NULL). The first error
 * goes to err, every error to errs (either may be NULL). */
static struct problem *load(const char *dir, const char *reference_dir, const char *text,
                            size_t len, json_t *root, char *err, size_t errlen,
                            struct problem_errors *errs)
{
    struct problem_loader ld;
    struct problem *p = NULL;
    json_t *own = NULL;
    json_error_t jerr;
    char *path = NULL;
    bool ok = false;

    if (errs)
        memset(errs, 0, sizeof *errs);
    p = calloc(1, sizeof *p);
    problem_loader_init(&ld, p, err, errlen, errs);
    if (!p) {
        problem_loader_bad(&ld, "out of memory");
        goto out;
    }
    if (!(p->dir = problem_loader_strdup(&ld, dir)))
        goto out;

    if (text) {
        if (!(p->json_text = malloc(len + 1))) {
            problem_loader_bad(&ld, "out of memory");
            goto out;
        }
        memcpy(p->json_text, text, len);
        p->json_text[len] = '\0';
    } else {
        if (!(path = path_join(dir, "problem.json"))) {
            problem_loader_bad(&ld, "out of memory");
            goto out;
        }
        p->json_text = read_text_file(path, "problem.json", 0, PROBLEM_MAX_FILE, &len, &ld);
        if (!p->json_text)
            goto out;
        /* Duplicate keys are refused: which of the two would win is a guess. */
        root = own = json_loadb(p->json_text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!root) {
            problem_loader_bad(&ld, "problem.json: line %d, column %d: %s", jerr.line, jerr.column,
                               jerr.text);
            goto out;
        }
    }
    /* problem.json's errors, then the files' (each file on its own) */
    if (problem_load_json(&ld, root, dir) != 0)
        problem_loader_note(&ld);
    if (json_is_object(root) && load_mistakes(&ld, json_object_get(root, "mistakes"), dir) != 0)
        problem_loader_note(&ld);
    if (!(p->statement_md = read_package_text(&ld, dir, "statement.md")))
        problem_loader_note(&ld);
    if (!(p->starter_c = read_package_text(&ld, dir, "starter.c")))
        problem_loader_note(&ld);
    if (load_hints(&ld, dir) != 0)
        problem_loader_note(&ld);
    if (load_walkthrough(&ld, dir) != 0)
        problem_loader_note(&ld);
    if (load_reference(&ld, dir, reference_dir) != 0)
        problem_loader_note(&ld);
    ok = !ld.failed;

out:
    if (!ok) {
        problem_loader_note(&ld); /* the error that stopped the load, if any */
        if (!ld.n_noted) {        /* never a failure without a word */
            problem_loader_bad(&ld, "%s: the package does not load", dir);
            problem_loader_note(&ld);
        }
    }
    json_decref(own);
    free(path);
    if (!ok) {
        problem_free(p);
        p = NULL;
    }
    return p;
}

struct problem *problem_load(const char *dir, const char *reference_dir, char *err, size_t errlen)
{
    return load(dir, reference_dir, NULL, 0, NULL, err, errlen, NULL);
}

struct problem *problem_load_all(const char *dir, const char *reference_dir,
                                 struct problem_errors *errs)
{
    return load(dir, reference_dir, NULL, 0, NULL, NULL, 0, errs);
}

struct problem *problem_load_parsed(const char *dir, const char *json_text, struct json_t *root,
                                    char *err, size_t errlen, struct problem_errors *errs)
{
    return load(dir, NULL, json_text, strlen(json_text), root, err, errlen, errs);
}

void problem_errors_free(struct problem_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++) {
        free(errs->e[i].field);
        free(errs->e[i].text);
    }
    memset(errs, 0, sizeof *errs);
}

void problem_free(struct problem *p)
{
    if (!p)
        return;
    free(p->dir);
    free(p->slug);
    free(p->title);
    free(p->difficulty);
    for (size_t i = 0; i < p->n_tags; i++)
        free(p->tags[i]);
    free(p->tags);
    for (size_t i = 0; i < p->n_prereqs; i++)
        free(p->prereqs[i]);
    free(p->prereqs);
    free(p->function);
    for (int i = 0; i < PROBLEM_MAX_PARAMS; i++) {
        free(p->params[i].name);
        for (int k = 0; k < TENSOR_MAX_RANK; k++) {
            expr_free(p->params[i].shape[k]);
            free(p->params[i].shape_text[k]);
        }
    }
    for (size_t i = 0; i < p->n_constraints; i++) {
        expr_free(p->constraints[i]);
        free(p->constraint_text[i]);
    }
    free(p->constraints);
    free(p->constraint_text);
    for (size_t i = 0; i < p->n_tests; i++) {
        free(p->tests[i].name);
        free(p->tests[i].dims);
    }
    free(p->tests);
    for (size_t i = 0; i < p->bench.n_sizes; i++) {
        free(p->bench.sizes[i].name);
        free(p->bench.sizes[i].dims);
    }
    free(p->bench.sizes);
    expr_free(p->bench.flops);
    expr_free(p->bench.bytes);
    free(p->bench.flops_text);
    free(p->bench.bytes_text);
    free(p->statement_md);
    free(p->starter_c);
    free(p->reference_path);
    free(p->json_text);
    for (size_t i = 0; i < p->n_mistakes; i++) {
        free(p->mistakes[i].id);
        free(p->mistakes[i].title);
        free(p->mistakes[i].hint);
        free(p->mistakes[i].path);
    }
    free(p->mistakes);
    for (size_t i = 0; i < p->n_hints; i++)
        free(p->hints[i]);
    free(p->walkthrough_md);
    free(p);
}

/* ---- queries ---------------------------------------------------------- */

static const char *const test_kind_names[] = {
    [TEST_SAMPLE] = "sample",
    [TEST_HIDDEN] = "hidden",
};

const char *problem_test_kind_name(enum test_kind k)
{
    return k == TEST_SAMPLE ? test_kind_names[TEST_SAMPLE] : test_kind_names[TEST_HIDDEN];
}

int problem_test_kind_from_name(const char *name)
{
    for (int k = TEST_SAMPLE; k <= TEST_HIDDEN; k++)
        if (strcmp(test_kind_names[k], name) == 0)
            return k;
    return -1;
}

const struct test_case *problem_find_test(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_tests; i++)
        if (strcmp(p->tests[i].name, name) == 0)
            return &p->tests[i];
    return NULL;
}

const char *problem_role_name(enum param_role r)
{
    return r == ROLE_IN ? "in" : r == ROLE_OUT ? "out" : "inout";
}

const char *problem_scalar_ctype(const struct param *q)
{
    return q->is_double ? "double" : "float";
}

void problem_default_scalars(const struct problem *p, double values[PROBLEM_MAX_PARAMS])
{
    for (int i = 0; i < p->n_params; i++)
        values[i] = p->params[i].kind == PARAM_FLOAT ? p->params[i].value : 0;
}

int problem_find_param(const struct problem *p, const char *name)
{
    for (int i = 0; i < p->n_params; i++)
        if (p->params[i].name && strcmp(p->params[i].name, name) == 0)
            return i;
    return -1;
}

/* lookup for expr_eval: a dimension's value at dims */
struct dims_at {
    const struct problem *p;
    const int64_t *dims;
};

static int lookup_dim(void *ctx, const char *name, int64_t *value)
{
    const struct dims_at *at = ctx;
    int i = problem_find_param(at->p, name);
    if (i < 0 || at->p->params[i].kind != PARAM_INT)
        return -1;
    *value = at->dims[at->p->params[i].dim_index];
    return 0;
}

int problem_bench_counts(const struct problem *p, const int64_t *dims, int64_t *flops,
                         int64_t *bytes, char *err, size_t errlen)
{
    struct dims_at at = {p, dims};
    char why[PROBLEM_ERR_LEN];

    if (expr_eval(p->bench.flops, lookup_dim, &at, flops, why, sizeof why) != 0) {
        snprintf(err, errlen, "benchmark.flops: %s", why);
        return -1;
    }
    if (expr_eval(p->bench.bytes, lookup_dim, &at, bytes, why, sizeof why) != 0) {
        snprintf(err, errlen, "benchmark.bytes: %s", why);
        return -1;
    }
    /* a problem that only moves data does no arithmetic: flops 0 */
    if (*flops < 0 || *bytes <= 0) {
        snprintf(err, errlen,
                 "benchmark: flops must be 0 or more and bytes positive (%" PRId64 ", %" PRId64 ")",
                 *flops, *bytes);
        return -1;
    }
    return 0;
}
