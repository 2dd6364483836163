/*
 * markdown — a problem statement's Markdown turned into HTML that is safe
 * to show.
 *
 * Statements are written by instructors but shown to every student, so the
 * HTML must not carry scripts: cmark-gfm renders in its safe mode (raw HTML
 * and javascript:/data: links replaced), and the browser's CSP is a second
 * wall. GitHub-flavoured tables are on: statements list shapes in tables.
 *
 * Math would suffer from Markdown: `\{` loses its backslash, `*` and `_`
 * pair into emphasis. So math spans are cut out before parsing and replaced
 * by plain alphanumeric placeholders, which cmark leaves alone; after
 * rendering, each placeholder is replaced by its math text, HTML-escaped and
 * with its $ delimiters, exactly as written. Code spans and fenced blocks
 * are skipped so that a `$` in code is never taken for math.
 */
#include "judge/markdown.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <pthread.h>

#include "util/array.h"

#define TOKEN "qzxATTNMATH"

struct span {
    size_t start, len;
};

struct spans {
    struct span *v;
    size_t n, cap;
};

static int push(struct spans *s, size_t start, size_t len)
{
    if (ARRAY_RESERVE(s->v, s->n, s->cap, 16) < 0)
        return -1;
    s->v[s->n++] = (struct span){start, len};
    return 0;
}

static bool at_line_start(const char *md, size_t i)
{
    size_t k = i, spaces = 0;
    while (k > 0 && md[k - 1] == ' ' && spaces < 4) {
        k--;
        spaces++;
    }
    return spaces < 4 && (k == 0 || md[k - 1] == '\n');
}

/* Finds the math spans of md (in order, not overlapping). */
static int find_math(const char *md, size_t len, struct spans *out)
{
    size_t i = 0;
    while (i < len) {
        char c = md[i];
        if (c == '\\' && i + 1 < len) {
            i += 2;
            continue;
        }
        if ((c == '`' || c == '~') && at_line_start(md, i) && i + 2 < len && md[i + 1] == c &&
            md[i + 2] == c) {
            /* fenced code: skip to the closing fence line */
            const char *end = NULL;
            for (size_t k = i + 3; k + 2 < len; k++)
                if (md[k] == c && md[k + 1] == c && md[k + 2] == c && at_line_start(md, k)) {
                    end = md + k + 3;
                    break;
                }
            i = end ? (size_t)(end - md) : len;
            continue;
        }
        if (c == '`') {
            size_t run = 0;
            while (i + run < len && md[i + run] == '`')
                run++;
            size_t k = i + run;
            bool closed = false;
            while (k < len) {
                size_t r = 0;
                while (k + r < len && md[k + r] == '`')
                    r++;
                if (r == run) {
                    closed = true;
                    k += r;
                    break;
                }
                k += r ? r : 1;
            }
            i = closed ? k : i + run;
            continue;
        }
        if (c == '$') {
            bool display = i + 1 < len && md[i + 1] == '$';
            size_t open = display ? 2 : 1, k = i + open;
            size_t end = 0;
            for (; k < len; k++) {
                if (md[k] == '\\') {
                    k++;
                    continue;
                }
                if (!display && md[k] == '\n' && k + 1 < len && md[k + 1] == '\n')
                    break; /* inline math does not cross a paragraph */
                if (md[k] == '$' && (!display || (k + 1 < len && md[k + 1] == '$'))) {
                    end = k + open;
                    break;
                }
            }
            /* Inline math must hug its delimiters ($ x$ is a dollar sign). */
            if (end && !display && (end - i < 3 || md[i + 1] == ' ' || md[end - 2] == ' '))
                end = 0;
            if (end) {
                if (push(out, i, end - i) < 0)
                    return -1;
                i = end;
                continue;
            }
        }
        i++;
    }
    return 0;
}

static void escape_html(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(s[i], f);
        }
    }
}

static pthread_once_t extensions_once = PTHREAD_ONCE_INIT;
static void register_extensions(void)
{
    cmark_gfm_core_extensions_ensure_registered();
}

/* Markdown to HTML with the table extension; NULL when out of memory. */
static char *render(const char *text, size_t len)
{
    char *html = NULL;
    pthread_once(&extensions_once, register_extensions);
    cmark_parser *parser = cmark_parser_new(CMARK_OPT_SAFE);
    cmark_syntax_extension *table = cmark_find_syntax_extension("table");
    if (!parser || !table || !cmark_parser_attach_syntax_extension(parser, table))
        goto out;
    cmark_parser_feed(parser, text, len);
    cmark_node *doc = cmark_parser_finish(parser);
    if (doc) {
        html = cmark_render_html(doc, CMARK_OPT_SAFE, cmark_parser_get_syntax_extensions(parser));
        cmark_node_free(doc);
    }
out:
    if (parser)
        cmark_parser_free(parser);
    return html;
}

char *markdown_html(const char *md, size_t len)
{
    struct spans math = {0};
    char *pre = NULL, *html = NULL, *out = NULL;
    size_t pre_len = 0, out_len = 0;
    FILE *f = NULL;

    if (find_math(md, len, &math) < 0)
        goto out;
    if (!(f = open_memstream(&pre, &pre_len)))
        goto out;
    size_t at = 0;
    for (size_t k = 0; k < math.n; k++) {
        fwrite(md + at, 1, math.v[k].start - at, f);
        fprintf(f, TOKEN "%zuZ", k);
        at = math.v[k].start + math.v[k].len;
    }
    fwrite(md + at, 1, len - at, f);
    if (fclose(f) != 0) {
        f = NULL;
        goto out;
    }
    f = NULL;
    if (!(html = render(pre, pre_len)))
        goto out;
    if (!(f = open_memstream(&out, &out_len)))
        goto out;
    const char *p = html;
    for (;;) {
        const char *t = strstr(p, TOKEN);
        if (!t) {
            fputs(p, f);
            break;
        }
        char *end;
        unsigned long k = strtoul(t + strlen(TOKEN), &end, 10);
        fwrite(p, 1, (size_t)(t - p), f);
        if (*end == 'Z' && k < math.n) {
            escape_html(f, md + math.v[k].start, math.v[k].len);
            p = end + 1;
        } else {
            fputs(TOKEN, f);
            p = t + strlen(TOKEN);
        }
    }
    if (fclose(f) != 0) {
        f = NULL;
        free(out);
        out = NULL;
        goto out;
    }
    f = NULL;
out:
    if (f)
        fclose(f);
    free(pre);
    free(html);
    free(math.v);
    return out;
}
