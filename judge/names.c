/*
 * names — the naming rules of problem packages (see names.h).
 */
#include "judge/names.h"

#include <stddef.h>
#include <string.h>

bool names_slug_valid(const char *slug)
{
    size_t n;

    if (!slug || !((slug[0] >= 'a' && slug[0] <= 'z') || (slug[0] >= '0' && slug[0] <= '9')))
        return false;
    for (n = 1; slug[n]; n++) {
        char c = slug[n];

        if (n > 62 || !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return false;
    }
    return true;
}

bool names_test_valid(const char *name)
{
    size_t n;

    if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= '0' && name[0] <= '9')))
        return false;
    for (n = 1; name[n]; n++) {
        char c = name[n];

        if (n >= NAMES_MAX_LEN ||
            !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
            return false;
    }
    return true;
}

/* C11's keywords, the one list of them (similarity.c tells them from
 * identifiers too). */
static const char *const c_keywords[] = {
    "auto",    "break",  "case",     "char",   "const",    "continue", "default",
    "do",      "double", "else",     "enum",   "extern",   "float",    "for",
    "goto",    "if",     "inline",   "int",    "long",     "register", "restrict",
    "return",  "short",  "signed",   "sizeof", "static",   "struct",   "switch",
    "typedef", "union",  "unsigned", "void",   "volatile", "while",    NULL,
};

bool names_c_keyword(const char *s, size_t len)
{
    for (const char *const *k = c_keywords; *k; k++)
        if (strlen(*k) == len && memcmp(*k, s, len) == 0)
            return true;
    return false;
}

/* Names that would not survive in a C prototype or in the generated harness
 * (which includes <stdio.h>, <stdint.h> and <math.h>): besides the C11
 * keywords, the macros and type names those headers define. */
static const char *const c_reserved[] = {
    "main",   "errno",  "assert", "NULL",    "EOF",     "NAN",     "INFINITY", "stdin",
    "stdout", "stderr", "size_t", "int32_t", "uint8_t", "int64_t", "uint64_t", NULL,
};

const char *names_c_identifier_error(const char *name)
{
    size_t n;

    if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') ||
          name[0] == '_'))
        return "is not a C identifier";
    for (n = 1; name[n]; n++) {
        char c = name[n];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return "is not a C identifier";
    }
    if (n > NAMES_MAX_LEN)
        return "is too long";
    /* _X and __x are reserved for the implementation, and C11's own
     * keywords (_Bool, _Atomic, ...) are among them. */
    if (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z')))
        return "is a reserved identifier";
    if (names_c_keyword(name, n))
        return "is a reserved C name";
    for (const char *const *r = c_reserved; *r; r++)
        if (strcmp(name, *r) == 0)
            return "is a reserved C name";
    return NULL;
}
