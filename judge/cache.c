/*
 * cache — the trusted programs' builds, keyed by their manifests
 * (cache.h). A build's manifest is its whole recipe as text, one fact a
 * line; its hash names the directory the product is kept in.
 */
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/cache.h"
#include "judge/elf.h"
#include "judge/errbuf.h"
#include "sandbox/sandbox.h"
#include "util/fs.h"

/* The first line of every cache manifest. Bumped whenever the way references
 * run changes in a way the manifest cannot see (the sandbox, the input blob),
 * so that cached outputs are not reused across such a change. */
#define CACHE_VERSION "attnjudge-cache-2"

/* BLAKE2b-256 of data as 64 hex digits. */
static void hash_hex(const void *data, size_t len, char hex[65])
{
    unsigned char h[32];

    crypto_generichash(h, sizeof h, data, len, NULL, 0);
    sodium_bin2hex(hex, 65, h, sizeof h);
}

/* The build as text, one fact per line: the cache version, the toolchain,
 * problem.json (it decides the tests whose outputs are cached too; NULL
 * for the harness object, which depends on the problem only through its
 * generated files), every file's name and hash, every argument of every
 * step, and the harness object's own manifest, each line prefixed with
 * "harness ". Anything that can change the product or the reference's
 * outputs is in here, so hashing this text is the cache key. Returns a new
 * string or NULL (out of memory). */
static char *build_manifest(const struct build *b, const char *toolchain, const char *json_text)
{
    char *text = NULL, hex[65];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    if (!f)
        return NULL;
    fprintf(f, "%s\n%s", CACHE_VERSION, toolchain);
    if (json_text) {
        hash_hex(json_text, strlen(json_text), hex);
        fprintf(f, "problem.json %s\n", hex);
    }
    for (int i = 0; i < b->n_files; i++) {
        hash_hex(b->text[i], b->len[i], hex);
        fprintf(f, "file %s %s\n", b->names[i], hex);
    }
    /* one argument per line: no argument can pass for two */
    for (int k = 0; k < b->n_steps; k++)
        for (int i = 0; b->steps[k][i]; i++)
            fprintf(f, "step%d %s\n", k + 1, b->steps[k][i]);
    for (const char *l = b->harness_manifest; l && *l;) {
        const char *e = strchr(l, '\n');
        int n = e ? (int)(e - l) : (int)strlen(l);
        fprintf(f, "harness %.*s\n", n, l);
        l += n + (e ? 1 : 0);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* <data>/cache/<prefix><slug>-<BLAKE2b-128 of the manifest>, created if
 * missing. */
static int cache_dir(const struct judge_ctx *ctx, const struct problem *p, const char *prefix,
                     const char *manifest, char *out, size_t len)
{
    unsigned char h[16];
    char hex[33];

    crypto_generichash(h, sizeof h, (const unsigned char *)manifest, strlen(manifest), NULL, 0);
    sodium_bin2hex(hex, sizeof hex, h, sizeof h);
    snprintf(out, len, "%s/cache/%s%s-%s", ctx->data_dir, prefix, p->slug, hex);
    if (mkdir(out, 0700) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* The harness object of p: read from <data>/cache/harness-<slug>-<key>/,
 * or compiled there in a sandbox of its own on a miss (once per problem
 * version and toolchain: the key is its manifest's hash, as for the
 * reference). *manifest receives that manifest: every build linked with
 * the object names it in its own (build_manifest). Returns 0 with two new
 * buffers, or -1 with err. */
static int harness_object(const struct judge_ctx *ctx, const struct problem *p, char **obj,
                          size_t *obj_len, char **manifest, char *err, size_t errlen)
{
    char dir[4096], path[4200], *log = NULL;
    struct build b;
    int fd = -1, rc = -1;

    *obj = NULL;
    *obj_len = 0;
    *manifest = NULL;
    if (build_harness(&b, p, err, errlen) < 0)
        goto out;
    if (!(*manifest = build_manifest(&b, ctx->toolchain, NULL))) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    if (cache_dir(ctx, p, "harness-", *manifest, dir, sizeof dir) < 0) {
        errbuf_set(err, errlen, "cannot create the cache directory %s: %s", dir, strerror(errno));
        goto out;
    }
    snprintf(path, sizeof path, "%s/" HARNESS_OBJ, dir);
    if (fs_read_file(path, O_NOFOLLOW, PROGRAM_MAX, obj, obj_len) == 0) {
        rc = 0;
        goto out;
    }
    double cpu, wall;
    enum compile_outcome c = compile_program(p, &b, &fd, &log, &cpu, &wall, NULL, err, errlen);
    if (c == COMPILE_INTERNAL)
        goto out;
    if (c == COMPILE_FAILED) {
        errbuf_set(err, errlen, "problem %s: the harness does not compile:\n%s", p->slug,
                   log ? log : "");
        goto out;
    }
    if (fs_read_fd(fd, PROGRAM_MAX, obj, obj_len) < 0) {
        errbuf_set(err, errlen, "reading the harness object: %s", strerror(errno));
        goto out;
    }
    /* a cache that cannot be written only costs time */
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    if (fs_write_atomic(path, *manifest, strlen(*manifest), 0600) == 0) {
        snprintf(path, sizeof path, "%s/" HARNESS_OBJ, dir);
        if (fs_write_atomic(path, *obj, *obj_len, 0600) < 0) {
            /* rebuilt next time */
        }
    }
    rc = 0;
out:
    if (rc < 0) {
        free(*obj);
        free(*manifest);
        *obj = *manifest = NULL;
    }
    if (fd >= 0)
        close(fd);
    free(log);
    build_free(&b);
    return rc;
}

int build_make(struct build *b, const struct judge_ctx *ctx, const struct problem *p,
               const char *source, size_t len, const char *filename, char *err, size_t errlen)
{
    char *harness = NULL, *manifest = NULL;
    size_t harness_len = 0;

    memset(b, 0, sizeof *b);
    if (harness_object(ctx, p, &harness, &harness_len, &manifest, err, errlen) < 0)
        return -1;
    return build_program(b, p, source, len, filename, harness, harness_len, manifest, err, errlen);
}

int package_program(const struct judge_ctx *ctx, const struct problem *p, const char *src_path,
                    const char *filename, char *dir, size_t dirlen, int *exe, char *err,
                    size_t errlen)
{
    char *src = NULL;
    size_t src_len = 0;

    if (!src_path || fs_read_file(src_path, O_NOFOLLOW, PROBLEM_MAX_FILE, &src, &src_len) < 0) {
        errbuf_set(err, errlen, "problem %s: cannot read %s", p->slug, filename);
        return -1;
    }
    int rc = program_from_text(ctx, p, src, src_len, filename, dir, dirlen, exe, err, errlen);
    free(src);
    return rc;
}

int program_from_text(const struct judge_ctx *ctx, const struct problem *p, const char *src,
                      size_t src_len, const char *filename, char *dir, size_t dirlen, int *exe,
                      char *err, size_t errlen)
{
    char *bin = NULL, *manifest = NULL;
    size_t bin_len = 0;
    char path[4200], *log = NULL;
    struct build b;
    int rc = -1;

    memset(&b, 0, sizeof b);
    if (build_make(&b, ctx, p, src, src_len, filename, err, errlen) < 0)
        goto out;
    if (!(manifest = build_manifest(&b, ctx->toolchain, p->json_text))) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    if (cache_dir(ctx, p, "", manifest, dir, dirlen) < 0) {
        errbuf_set(err, errlen, "cannot create the cache directory %s: %s", dir, strerror(errno));
        goto out;
    }
    snprintf(path, sizeof path, "%s/reference.bin", dir);
    if (fs_read_file(path, O_NOFOLLOW, PROGRAM_MAX, &bin, &bin_len) == 0) {
        *exe = sbx_memfd_from("attnjudge-reference", bin, bin_len);
        rc = *exe < 0 ? -1 : 0;
        if (rc < 0)
            errbuf_set(err, errlen, "memfd: %s", strerror(errno));
        goto out;
    }
    double cpu, wall;
    enum compile_outcome c = compile_program(p, &b, exe, &log, &cpu, &wall, NULL, err, errlen);
    if (c == COMPILE_INTERNAL)
        goto out;
    if (c == COMPILE_FAILED) {
        errbuf_set(err, errlen, "problem %s: %s does not compile:\n%s", p->slug, filename,
                   log ? log : "");
        goto out;
    }
    /* The manifest says what the key was made of (for an operator asking
     * why a reference was rebuilt). A cache that cannot be written only
     * costs time. */
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    if (fs_write_atomic(path, manifest, strlen(manifest), 0600) == 0 &&
        fs_read_fd(*exe, PROGRAM_MAX, &bin, &bin_len) == 0) {
        snprintf(path, sizeof path, "%s/reference.bin", dir);
        if (fs_write_atomic(path, bin, bin_len, 0600) < 0) {
            /* rebuilt next time */
        }
    }
    rc = 0;
out:
    build_free(&b);
    free(manifest);
    free(bin);
    free(log);
    return rc;
}

int reference_program(const struct judge_ctx *ctx, const struct problem *p, char *dir,
                      size_t dirlen, int *exe, char *err, size_t errlen)
{
    return package_program(ctx, p, p->reference_path, "reference.c", dir, dirlen, exe, err, errlen);
}
