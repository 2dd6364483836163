/*
 * Fuzz target: problem statements (judge/markdown.c): the math pre-pass
 * (find_math), the placeholders, cmark-gfm in safe mode, and putting the
 * math back. Instructors write statements; every student's browser shows
 * them, so besides "no crash" the HTML is checked for markup that cmark
 * would never write: every '<' must open one of cmark's own tags (or its
 * "raw HTML omitted" comment), and no link may use a script URL.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "judge/markdown.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const tags[] = {"p",     "h1",     "h2",         "h3",  "h4",  "h5",    "h6",
                                   "em",    "strong", "code",       "pre", "a",   "img",   "ul",
                                   "ol",    "li",     "blockquote", "hr",  "br",  "table", "thead",
                                   "tbody", "tr",     "th",         "td",  "del", NULL};

static bool known_tag(const char *s)
{
    if (*s == '/')
        s++;
    for (const char *const *t = tags; *t; t++) {
        size_t n = strlen(*t);
        if (!strncmp(s, *t, n) && (s[n] == '>' || s[n] == ' ' || s[n] == '/'))
            return true;
    }
    return false;
}

/* The value of an attribute starting at v (after the quote). */
static bool script_url(const char *v)
{
    while (*v == ' ' || *v == '\t' || *v == '\n')
        v++;
    return !strncasecmp(v, "javascript:", 11) || !strncasecmp(v, "vbscript:", 9);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *html = markdown_html((const char *)data, size);
    if (!html)
        return 0;
    for (const char *p = html; (p = strchr(p, '<')); p++) {
        if (!strncmp(p + 1, "!-- raw HTML omitted -->", 24))
            continue;
        if (!known_tag(p + 1))
            abort(); /* markup that came from the statement, not from cmark */
    }
    for (const char *p = html; (p = strstr(p, "href=\"")); p++)
        if (script_url(p + 6))
            abort();
    for (const char *p = html; (p = strstr(p, "src=\"")); p++)
        if (script_url(p + 5))
            abort();
    free(html);
    return 0;
}
