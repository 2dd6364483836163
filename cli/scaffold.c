/*
 * scaffold — `attnjudge problem new SLUG`: writes a small, complete package
 * (a row-wise softmax) that passes `attnjudge problem check` as it is, for
 * an author to edit into their own problem (docs/authoring.md). Every file
 * is a template in which @SLUG@ and @FN@ (the C function: the slug with '_'
 * for '-') are replaced.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "judge/errbuf.h"
#include "judge/names.h"

struct template
{
    const char *path; /* inside the package */
    const char *text;
};

static const struct template templates[] = {
    {"problem.json",
     "{\n"
     "  \"slug\": \"@SLUG@\",\n"
     "  \"title\": \"@SLUG@: row-wise softmax (edit me)\",\n"
     "  \"difficulty\": \"easy\",\n"
     "  \"tags\": [\"softmax\"],\n"
     "  \"prerequisites\": [],\n"
     "  \"function\": \"@FN@\",\n"
     "  \"params\": [\n"
     "    {\"name\": \"x\", \"type\": \"f32\", \"role\": \"in\", \"shape\": [\"rows\", "
     "\"cols\"]},\n"
     "    {\"name\": \"y\", \"type\": \"f32\", \"role\": \"out\", \"shape\": [\"rows\", "
     "\"cols\"]},\n"
     "    {\"name\": \"rows\", \"type\": \"int\"},\n"
     "    {\"name\": \"cols\", \"type\": \"int\"}\n"
     "  ],\n"
     "  \"constraints\": [\"rows >= 1\", \"cols >= 1\"],\n"
     "  \"generators\": {\n"
     "    \"x\": {\"dist\": \"normal\", \"mean\": 0, \"std\": 2}\n"
     "  },\n"
     "  \"tolerance\": {\"atol\": 0.0001, \"rtol\": 0.0001, \"atol_relative_to_max\": true},\n"
     "  \"limits\": {\"cpu_ms\": 1000, \"wall_ms\": 3000, \"memory_mb\": 256},\n"
     "  \"domain\": {\"dims\": {\"rows\": [1, 64], \"cols\": [1, 512]},\n"
     "             \"values\": {\"x\": {\"max_abs\": 2000}}, \"max_elems\": 8192},\n"
     "  \"tests\": [\n"
     "    {\"name\": \"sample-small\", \"kind\": \"sample\", \"seed\": 1, \"dims\": {\"rows\": 2, "
     "\"cols\": 3}},\n"
     "    {\"name\": \"odd-sizes\", \"kind\": \"hidden\", \"dims\": {\"rows\": 7, \"cols\": 13}},\n"
     "    {\"name\": \"single-column\", \"kind\": \"hidden\", \"dims\": {\"rows\": 16, \"cols\": "
     "1}},\n"
     "    {\"name\": \"large-scores\", \"kind\": \"hidden\", \"weight\": 2, \"dims\": {\"rows\": "
     "8, \"cols\": 40}, \"generators\": {\"x\": {\"std\": 300}}}\n"
     "  ]\n"
     "}\n"},
    {"statement.md",
     "# @SLUG@: row-wise softmax (edit me)\n"
     "\n"
     "One paragraph: what the function computes and why it matters for attention.\n"
     "\n"
     "```c\n"
     "void @FN@(const float *x, float *y, int rows, int cols);\n"
     "```\n"
     "\n"
     "## Shapes and memory layout\n"
     "\n"
     "| argument | shape | meaning |\n"
     "| --- | --- | --- |\n"
     "| `x` | $(rows, cols)$ | the input, contiguous and row-major (IEEE binary32) |\n"
     "| `y` | $(rows, cols)$ | your result, same layout |\n"
     "\n"
     "Element $x[r][c]$ lives at `x[r*cols + c]`.\n"
     "\n"
     "## What to compute\n"
     "\n"
     "$$y[r][c] = \\frac{\\exp(x[r][c] - m_r)}{\\sum_{c'} \\exp(x[r][c'] - m_r)}, \\qquad m_r = "
     "\\max_c x[r][c].$$\n"
     "\n"
     "## A worked example\n"
     "\n"
     "Take `rows = 1`, `cols = 3` and the row $(1, 2, 3)$: $m_0 = 3$, the shifted\n"
     "exponentials are $(e^{-2}, e^{-1}, 1) = (0.1353, 0.3679, 1)$, their sum is\n"
     "$1.5032$, so $y[0] = (0.0900, 0.2447, 0.6652)$.\n"
     "\n"
     "## Numerical advice\n"
     "\n"
     "Subtract the row maximum before exponentiating: some tests have scores in\n"
     "the hundreds.\n"
     "\n"
     "## Input domain\n"
     "\n"
     "`rows` is between 1 and 64, `cols` between 1 and 512, and every $|x[r][c]|$\n"
     "is at most 2000.\n"
     "\n"
     "## How it is judged\n"
     "\n"
     "Your function is called once per test on random inputs; `y` is filled with\n"
     "NaN before the call, so every element must be written. Each output element\n"
     "must be within the problem's tolerance of the reference's.\n"},
    {"starter.c", "/*\n"
                  " * @SLUG@ — the file students start from: it compiles, and fails every test.\n"
                  " */\n"
                  "#include <math.h>\n"
                  "#include <stdlib.h>\n"
                  "\n"
                  "void @FN@(const float *x, float *y, int rows, int cols)\n"
                  "{\n"
                  "    (void)x;\n"
                  "    /* TODO: the row-wise softmax of x, subtracting each row's maximum */\n"
                  "    for (long i = 0; i < (long)rows * cols; i++)\n"
                  "        y[i] = 0.0f;\n"
                  "}\n"},
    {"reference.c", "/*\n"
                    " * Reference implementation of problem \"@SLUG@\": accumulates in double and\n"
                    " * rounds only the outputs, so it is more accurate than any float solution.\n"
                    " */\n"
                    "#include <math.h>\n"
                    "#include <stdlib.h>\n"
                    "\n"
                    "void @FN@(const float *x, float *y, int rows, int cols);\n"
                    "\n"
                    "void @FN@(const float *x, float *y, int rows, int cols)\n"
                    "{\n"
                    "    for (int r = 0; r < rows; r++) {\n"
                    "        const float *xr = x + (size_t)r * cols;\n"
                    "        float *yr = y + (size_t)r * cols;\n"
                    "        double m = xr[0], sum = 0.0;\n"
                    "        for (int c = 1; c < cols; c++)\n"
                    "            m = xr[c] > m ? xr[c] : m;\n"
                    "        for (int c = 0; c < cols; c++)\n"
                    "            sum += exp((double)xr[c] - m);\n"
                    "        for (int c = 0; c < cols; c++)\n"
                    "            yr[c] = (float)(exp((double)xr[c] - m) / sum);\n"
                    "    }\n"
                    "}\n"},
    {"accepted/float_softmax.c",
     "/* A correct solution in float: must be accepted with a 10x margin. */\n"
     "#include <math.h>\n"
     "\n"
     "void @FN@(const float *x, float *y, int rows, int cols)\n"
     "{\n"
     "    for (int r = 0; r < rows; r++) {\n"
     "        const float *xr = x + (long)r * cols;\n"
     "        float *yr = y + (long)r * cols;\n"
     "        float m = xr[0], sum = 0.0f;\n"
     "        for (int c = 1; c < cols; c++)\n"
     "            m = fmaxf(m, xr[c]);\n"
     "        for (int c = 0; c < cols; c++)\n"
     "            sum += yr[c] = expf(xr[c] - m);\n"
     "        for (int c = 0; c < cols; c++)\n"
     "            yr[c] /= sum;\n"
     "    }\n"
     "}\n"},
    {"wrong/no_max_subtraction.c",
     "/* A known mistake: no maximum subtracted, so expf overflows on the\n"
     " * large-scores test. Must not be accepted. */\n"
     "#include <math.h>\n"
     "\n"
     "void @FN@(const float *x, float *y, int rows, int cols)\n"
     "{\n"
     "    for (int r = 0; r < rows; r++) {\n"
     "        const float *xr = x + (long)r * cols;\n"
     "        float *yr = y + (long)r * cols;\n"
     "        float sum = 0.0f;\n"
     "        for (int c = 0; c < cols; c++)\n"
     "            sum += yr[c] = expf(xr[c]);\n"
     "        for (int c = 0; c < cols; c++)\n"
     "            yr[c] /= sum;\n"
     "    }\n"
     "}\n"},
    {"hints/1.md", "Each row of `x` is its own distribution: its maximum and its sum run over\n"
                   "that row's columns only.\n"},
    {"hints/2.md", "Subtract the row maximum $m$ before exponentiating: every $e^{x - m}$ is then\n"
                   "at most 1, so nothing overflows, and the quotient is unchanged.\n"},
    {"walkthrough.md", "# Walkthrough (edit me)\n"
                       "\n"
                       "Three passes over each row: its maximum $m$, the sum\n"
                       "$s = \\sum_c e^{x_c - m}$, then $y_c = e^{x_c - m} / s$. Without the\n"
                       "maximum, `expf` overflows on the large-scores test.\n"
                       "\n"
                       "```c\n"
                       "for (int c = 0; c < cols; c++)\n"
                       "    yr[c] = expf(xr[c] - m) / sum;\n"
                       "```\n"},
};

/* text with every @SLUG@ and @FN@ replaced: a new string, NULL when out of
 * memory. */
static char *expand(const char *text, const char *slug, const char *fn)
{
    size_t cap = strlen(text) + 1, n = 0;
    for (const char *t = text; (t = strchr(t, '@')); t++)
        cap += NAMES_MAX_LEN + 8;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const char *t = text; *t;) {
        if (!strncmp(t, "@SLUG@", 6) || !strncmp(t, "@FN@", 4)) {
            const char *v = t[1] == 'S' ? slug : fn;
            memcpy(out + n, v, strlen(v));
            n += strlen(v);
            t += t[1] == 'S' ? 6 : 4;
        } else {
            out[n++] = *t++;
        }
    }
    out[n] = '\0';
    return out;
}

/* Writes text to path, which must not exist. */
static int write_new(const char *path, const char *text, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        errbuf_set(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t len = strlen(text), at = 0;
    while (at < len) {
        ssize_t w = write(fd, text + at, len - at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            errbuf_set(err, errlen, "%s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        at += (size_t)w;
    }
    if (close(fd) < 0) {
        errbuf_set(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int cli_scaffold(const char *parent, const char *slug, char *out_dir, size_t out_len, char *err,
                 size_t errlen)
{
    char fn[NAMES_MAX_LEN + 8], dir[4096], path[4200];

    if (!names_slug_valid(slug)) {
        errbuf_set(err, errlen, "'%s' is not a valid slug ([a-z0-9][a-z0-9-]*, at most 63)", slug);
        return -1;
    }
    snprintf(fn, sizeof fn, "%s", slug);
    for (char *c = fn; *c; c++)
        if (*c == '-')
            *c = '_';
    if (names_c_identifier_error(fn))
        snprintf(fn, sizeof fn, "solve_%.*s", NAMES_MAX_LEN - 6, slug);
    for (char *c = fn; *c; c++)
        if (*c == '-')
            *c = '_';
    if (names_c_identifier_error(fn)) {
        errbuf_set(err, errlen, "'%s': no C function name can be made of it (%s)", slug,
                   names_c_identifier_error(fn));
        return -1;
    }
    snprintf(dir, sizeof dir, "%s/%s", parent, slug);
    snprintf(out_dir, out_len, "%s", dir);
    if (mkdir(dir, 0755) < 0) {
        errbuf_set(err, errlen, "%s: %s", dir,
                   errno == EEXIST ? "already exists (not overwritten)" : strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof templates / sizeof templates[0]; i++) {
        const char *slash = strchr(templates[i].path, '/');
        snprintf(path, sizeof path, "%s/%.*s", dir, slash ? (int)(slash - templates[i].path) : 0,
                 templates[i].path);
        if (slash && mkdir(path, 0755) < 0 && errno != EEXIST) {
            errbuf_set(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
        snprintf(path, sizeof path, "%s/%s", dir, templates[i].path);
        char *text = expand(templates[i].text, slug, fn);
        if (!text) {
            errbuf_set(err, errlen, "out of memory");
            return -1;
        }
        int rc = write_new(path, text, err, errlen);
        free(text);
        if (rc < 0)
            return -1;
    }
    return 0;
}
