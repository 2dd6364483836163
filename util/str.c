/*
 * str — small string helpers (see str.h).
 */
#include "util/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *str_dup(const char *s)
{
    return s ? strdup(s) : NULL;
}

char *str_printf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

int str_replace_all(char **s, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to);
    char *p;
    if (!*s || !fl)
        return 0;
    size_t count = 0;
    for (p = strstr(*s, from); p; p = strstr(p + fl, from))
        count++;
    if (!count)
        return 0;
    char *out = malloc(strlen(*s) + count * tl + 1); /* enough for any fl */
    if (!out)
        return -1;
    char *w = out;
    const char *r = *s;
    for (p = strstr(r, from); p; p = strstr(r, from)) {
        memcpy(w, r, (size_t)(p - r));
        w += p - r;
        memcpy(w, to, tl);
        w += tl;
        r = p + fl;
    }
    strcpy(w, r);
    free(*s);
    *s = out;
    return 0;
}
