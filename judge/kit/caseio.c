/*
 * caseio — the sample kit's loader: .npy files read and outputs compared,
 * shipped as source.
 *
 * The .npy format (version 1.0, what attnjudge writes; 2.0 and 3.0 are read
 * too) is the magic "\x93NUMPY", two version bytes, the header's length
 * (2 bytes little-endian in 1.0, 4 in 2.0/3.0), an ASCII Python dict such as
 * {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
 * spaces and '\n', then the elements in C order. Elements are decoded
 * little-endian byte by byte, so the files read the same on any host.
 *
 * case.json is read only for its integer dims, with a small scanner that
 * knows the shape attnjudge writes; this file needs no JSON library.
 *
 * The comparison is the judge's (judge/compare.c): written as "element is
 * within tolerance", a test that is false for NaN, so a NaN never passes.
 */
#include "caseio.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NPY_MAGIC "\x93NUMPY"
#define MAX_HEADER (64 * 1024) /* bytes of a .npy header dict */
#define MAX_JSON (1024 * 1024) /* bytes of a case.json */
#define SHOWN 8                /* mismatching elements printed per output */

static size_t dtype_size(enum caseio_dtype t)
{
    return t == CASEIO_U8 ? 1 : 4;
}

static const char *dtype_descr(enum caseio_dtype t)
{
    switch (t) {
    case CASEIO_F32: return "<f4";
    case CASEIO_U8: return "|u1";
    case CASEIO_I32: return "<i4";
    }
    return "?";
}

/* numpy also spells a byte "<u1" or "u1". */
static bool descr_matches(const char *descr, enum caseio_dtype t)
{
    if (t == CASEIO_U8)
        return !strcmp(descr, "|u1") || !strcmp(descr, "<u1") || !strcmp(descr, "u1");
    return !strcmp(descr, dtype_descr(t));
}

void caseio_free(struct caseio_array *a)
{
    free(a->data);
    a->data = NULL;
}

/* The value of key in the header dict, after "'key':" and blanks. */
static const char *dict_value(const char *dict, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s':", key);
    const char *v = strstr(dict, pat);
    if (!v)
        return NULL;
    v += strlen(pat);
    while (*v == ' ')
        v++;
    return v;
}

/* Parses the header dict: descr, fortran_order and shape. */
static int parse_header(const char *path, const char *dict, enum caseio_dtype dtype,
                        struct caseio_array *a)
{
    const char *v = dict_value(dict, "descr");
    char descr[16];
    size_t n = 0;
    if (!v || (*v != '\'' && *v != '"')) {
        fprintf(stderr, "%s: no 'descr' in the .npy header\n", path);
        return -1;
    }
    for (char q = *v++; *v && *v != q && n + 1 < sizeof descr;)
        descr[n++] = *v++;
    descr[n] = '\0';
    if (!descr_matches(descr, dtype)) {
        fprintf(stderr, "%s: element type '%s', want '%s'\n", path, descr, dtype_descr(dtype));
        return -1;
    }
    v = dict_value(dict, "fortran_order");
    if (!v || strncmp(v, "False", 5)) {
        fprintf(stderr, "%s: only C order (fortran_order False) is supported\n", path);
        return -1;
    }
    v = dict_value(dict, "shape");
    if (!v || *v != '(') {
        fprintf(stderr, "%s: no 'shape' in the .npy header\n", path);
        return -1;
    }
    v++;
    a->rank = 0;
    a->n_elems = 1;
    for (;;) {
        while (*v == ' ' || *v == ',')
            v++;
        if (*v == ')')
            break;
        char *end;
        long long d = strtoll(v, &end, 10);
        if (end == v || d < 0 || a->rank == CASEIO_MAX_RANK) {
            fprintf(stderr, "%s: bad shape in the .npy header\n", path);
            return -1;
        }
        a->shape[a->rank++] = d;
        a->n_elems *= d;
        v = end;
    }
    a->dtype = dtype;
    return 0;
}

/* Reads a .npy file. Returns 0, 1 if it does not exist, or -1 (printed). */
static int npy_read(const char *path, enum caseio_dtype dtype, struct caseio_array *a)
{
    unsigned char pre[12];
    char *dict = NULL;
    unsigned char *raw = NULL;
    int rc = -1;
    memset(a, 0, sizeof *a);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return 1;
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, NPY_MAGIC, 6)) {
        fprintf(stderr, "%s: not a .npy file\n", path);
        goto out;
    }
    size_t hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    if (pre[6] >= 2) { /* version 2.0 and 3.0: a 4-byte length */
        if (fread(pre + 10, 1, 2, f) != 2) {
            fprintf(stderr, "%s: truncated .npy header\n", path);
            goto out;
        }
        hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    }
    if (hlen > MAX_HEADER || !(dict = calloc(1, hlen + 1)) || fread(dict, 1, hlen, f) != hlen) {
        fprintf(stderr, "%s: bad .npy header\n", path);
        goto out;
    }
    if (parse_header(path, dict, dtype, a) < 0)
        goto out;
    size_t es = dtype_size(dtype), bytes = (size_t)a->n_elems * es;
    if (!(raw = malloc(bytes ? bytes : 1)) || !(a->data = malloc(bytes ? bytes : 1))) {
        fprintf(stderr, "%s: out of memory\n", path);
        goto out;
    }
    if (fread(raw, 1, bytes, f) != bytes) {
        fprintf(stderr, "%s: %lld elements expected, the file is shorter\n", path,
                (long long)a->n_elems);
        goto out;
    }
    if (es == 1) {
        memcpy(a->data, raw, bytes);
    } else {
        for (size_t i = 0; i < (size_t)a->n_elems; i++) {
            uint32_t u = (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
                         (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;
            memcpy((unsigned char *)a->data + 4 * i, &u, 4);
        }
    }
    rc = 0;
out:
    if (rc < 0)
        caseio_free(a);
    free(raw);
    free(dict);
    fclose(f);
    return rc;
}

static int npy_write(const char *path, const struct caseio_array *a)
{
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     dtype_descr(a->dtype));
    for (int k = 0; k < a->rank; k++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%lld", k ? ", " : "",
                      (long long)a->shape[k]);
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", a->rank == 1 ? "," : "");
    /* pad so that the data starts at a multiple of 64 bytes, as numpy does */
    size_t hlen = (size_t)n + 1;
    hlen += (64 - (10 + hlen) % 64) % 64;
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    unsigned char pre[10] = {0x93,
                             'N',
                             'U',
                             'M',
                             'P',
                             'Y',
                             1,
                             0,
                             (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    fwrite(pre, 1, sizeof pre, f);
    fwrite(dict, 1, (size_t)n, f);
    for (size_t i = (size_t)n; i + 1 < hlen; i++)
        fputc(' ', f);
    fputc('\n', f);
    const unsigned char *d = a->data;
    for (size_t i = 0; i < (size_t)a->n_elems; i++) {
        if (dtype_size(a->dtype) == 1) {
            fputc(d[i], f);
            continue;
        }
        uint32_t u;
        memcpy(&u, d + 4 * i, 4);
        for (int b = 0; b < 4; b++)
            fputc((int)(u >> (8 * b)) & 0xff, f);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int caseio_load_input(const char *dir, const char *name, enum caseio_dtype dtype, bool nullable,
                      struct caseio_array *a)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/inputs/%s.npy", dir, name);
    int rc = npy_read(path, dtype, a);
    if (rc == 1 && !nullable)
        fprintf(stderr, "%s: missing (%s may not be NULL)\n", path, name);
    if (rc == 1 && nullable)
        return 0; /* passed as NULL in this case */
    return rc == 0 ? 0 : -1;
}

int caseio_load_output(const char *dir, const char *name, enum caseio_dtype dtype,
                       struct caseio_array *want, struct caseio_array *got)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/expected/%s.npy", dir, name);
    memset(got, 0, sizeof *got);
    int rc = npy_read(path, dtype, want);
    if (rc == 1)
        fprintf(stderr, "%s: missing\n", path);
    if (rc != 0)
        return -1;
    *got = *want;
    size_t bytes = (size_t)want->n_elems * dtype_size(dtype);
    if (!(got->data = malloc(bytes ? bytes : 1))) {
        fprintf(stderr, "%s: out of memory\n", name);
        return -1;
    }
    memset(got->data, 0xFF, bytes);
    return 0;
}

/* Copies the text of the number <object>.<name> of <dir>/case.json into
 * num (what follows the colon, up to the next ',' or '}'). case.json is
 * written by attnjudge: flat objects of numbers, so a search suffices.
 * 0, or -1 after printing why. */
static int load_member(const char *dir, const char *object, const char *name, char *num,
                       size_t numlen)
{
    char path[4096], key[128];
    char *text = NULL;
    int rc = -1;
    snprintf(path, sizeof path, "%s/case.json", dir);
    FILE *f = fopen(path, "rb");
    if (!f || !(text = calloc(1, MAX_JSON + 1))) {
        fprintf(stderr, "%s: %s\n", path, f ? "out of memory" : strerror(errno));
        goto out;
    }
    size_t len = fread(text, 1, MAX_JSON, f);
    text[len] = '\0';
    snprintf(key, sizeof key, "\"%s\"", object);
    const char *obj = strstr(text, key);
    const char *open = obj ? strchr(obj, '{') : NULL;
    const char *close = open ? strchr(open, '}') : NULL;
    snprintf(key, sizeof key, "\"%s\"", name);
    const char *at = open ? strstr(open, key) : NULL;
    if (!at || at > close) {
        fprintf(stderr, "%s: no %s.%s\n", path, object, name);
        goto out;
    }
    at += strlen(key);
    while (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r')
        at++;
    if (*at++ != ':') {
        fprintf(stderr, "%s: %s.%s has no value\n", path, object, name);
        goto out;
    }
    size_t n = strcspn(at, ",}");
    snprintf(num, numlen, "%.*s", (int)n, at);
    rc = 0;
out:
    free(text);
    if (f)
        fclose(f);
    return rc;
}

int caseio_load_int(const char *dir, const char *name, int64_t *v)
{
    char num[64], *end;
    if (load_member(dir, "dims", name, num, sizeof num) < 0)
        return -1;
    *v = strtoll(num, &end, 10);
    if (end == num) {
        fprintf(stderr, "%s/case.json: dims.%s is not an integer\n", dir, name);
        return -1;
    }
    return 0;
}

int caseio_load_scalar(const char *dir, const char *name, double *v)
{
    char num[64], *end;
    if (load_member(dir, "scalars", name, num, sizeof num) < 0)
        return -1;
    *v = strtod(num, &end);
    if (end == num) {
        fprintf(stderr, "%s/case.json: scalars.%s is not a number\n", dir, name);
        return -1;
    }
    return 0;
}

int caseio_load_inout(const char *dir, const char *name, enum caseio_dtype dtype,
                      struct caseio_array *want, struct caseio_array *got)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/expected/%s.npy", dir, name);
    memset(got, 0, sizeof *got);
    int rc = npy_read(path, dtype, want);
    if (rc == 1)
        fprintf(stderr, "%s: missing\n", path);
    if (rc != 0)
        return -1;
    /* got starts as the value before the call, the function updates it */
    return caseio_load_input(dir, name, dtype, false, got);
}

static double element(const struct caseio_array *a, int64_t i)
{
    switch (a->dtype) {
    case CASEIO_F32: return ((const float *)a->data)[i];
    case CASEIO_U8: return ((const unsigned char *)a->data)[i];
    case CASEIO_I32: return ((const int32_t *)a->data)[i];
    }
    return NAN;
}

/* True if element i still holds the 0xFF bytes it started as. */
static bool never_written(const struct caseio_array *a, int64_t i)
{
    const unsigned char *b = (const unsigned char *)a->data + (size_t)i * dtype_size(a->dtype);
    for (size_t k = 0; k < dtype_size(a->dtype); k++)
        if (b[k] != 0xFF)
            return false;
    return true;
}

static void print_coord(const char *name, const struct caseio_array *a, int64_t i)
{
    int64_t coord[CASEIO_MAX_RANK];
    for (int k = a->rank - 1; k >= 0; k--) {
        int64_t extent = a->shape[k] > 0 ? a->shape[k] : 1;
        coord[k] = i % extent;
        i /= extent;
    }
    printf("    %s[", name);
    for (int k = 0; k < a->rank; k++)
        printf("%s%lld", k ? ", " : "", (long long)coord[k]);
    printf("]");
}

int caseio_check(const char *dir, const char *test, const char *name,
                 const struct caseio_array *want, const struct caseio_array *got,
                 const struct caseio_tolerance *tol)
{
    char path[4096];
    double atol = 0, rtol = 0, max_err = 0;
    int64_t bad = 0;
    snprintf(path, sizeof path, "%s/got", dir);
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
    snprintf(path, sizeof path, "%s/got/%s.npy", dir, name);
    int written = npy_write(path, got);
    if (want->dtype == CASEIO_F32) {
        atol = tol->atol;
        rtol = tol->rtol;
        if (tol->atol_relative_to_max) {
            double max = 0;
            for (int64_t i = 0; i < want->n_elems; i++)
                if (isfinite(element(want, i)) && fabs(element(want, i)) > max)
                    max = fabs(element(want, i));
            atol *= max;
        }
    }
    for (int64_t i = 0; i < want->n_elems; i++) {
        double e = element(want, i), g = element(got, i);
        bool within;
        if (!isfinite(e))
            within = g == e; /* only the same infinity; NaN == NaN is false */
        else if (!isfinite(g))
            within = false;
        else {
            double diff = fabs(g - e);
            max_err = diff > max_err ? diff : max_err;
            within = diff <= atol + rtol * fabs(e);
        }
        if (within)
            continue;
        if (bad++ == 0)
            printf("%s: %s: MISMATCH\n", test, name);
        if (bad > SHOWN)
            continue;
        print_coord(name, want, i);
        printf(": expected %.9g, got %.9g%s\n", e, g,
               never_written(got, i) ? " (never written: still the 0xFF bytes it started as)" : "");
    }
    if (bad)
        printf("  %lld of %lld elements outside |got - expected| <= %.3g + %.3g * |expected|; "
               "max abs err %.3g (finite elements)\n",
               (long long)bad, (long long)want->n_elems, atol, rtol, max_err);
    else
        printf("%s: %s: match (%lld elements, max abs err %.3g)\n", test, name,
               (long long)want->n_elems, max_err);
    if (written == 0)
        printf("  wrote %s\n", path);
    return written < 0 ? -1 : bad ? 1 : 0;
}
