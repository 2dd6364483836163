/*
 * problem_files — the package's files besides problem.json: statement.md,
 * starter.c, the reference, the known mistakes' C files, hints/N.md and
 * walkthrough.md (see problem_files.h).
 *
 * Each file is read on its own (at most PROBLEM_MAX_FILE bytes, no NUL
 * byte, never a FIFO), so that one missing file does not hide another's
 * error. Texts the server puts in JSON must be valid UTF-8. Nothing here
 * runs package code; the reference is only located.
 */
#include "judge/problem_files.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "judge/jsonget.h"
#include "judge/names.h"
#include "util/fs.h"

/* Reads a package file of at most max bytes into a new NUL-terminated
 * buffer; flags are added to open()'s (O_NOFOLLOW). Refuses non-regular
 * files (a FIFO would block the server) and NUL bytes (the contents are
 * used as C strings). */
char *problem_files_read(const char *path, const char *label, int flags, size_t max,
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
    char *path = fs_path_join(dir, name), *text = NULL;
    size_t len = 0;
    json_t *probe;

    if (!path) {
        problem_loader_bad(ld, "out of memory");
        return NULL;
    }
    text = problem_files_read(path, name, flags, max, &len, ld);
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
    char *path = fs_path_join(dir, "reference.c");

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
    char *hdir = fs_path_join(dir, "hints"), name[80];
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
    char *path = fs_path_join(dir, "walkthrough.md");
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

int problem_files_load(struct problem_loader *ld, json_t *root, const char *dir,
                       const char *reference_dir)
{
    struct problem *p = ld->p;

    if (json_is_object(root) && load_mistakes(ld, json_object_get(root, "mistakes"), dir) != 0)
        problem_loader_note(ld);
    if (!(p->statement_md = read_package_text(ld, dir, "statement.md")))
        problem_loader_note(ld);
    if (!(p->starter_c = read_package_text(ld, dir, "starter.c")))
        problem_loader_note(ld);
    if (load_hints(ld, dir) != 0)
        problem_loader_note(ld);
    if (load_walkthrough(ld, dir) != 0)
        problem_loader_note(ld);
    if (load_reference(ld, dir, reference_dir) != 0)
        problem_loader_note(ld);
    return ld->failed ? -1 : 0;
}
