/*
 * ctoken — C source to tokens, in one linear pass (ctoken.h).
 *
 * Numbers are read as preprocessing numbers (digits, letters, dots and a
 * sign after an exponent's e), strings up to their closing quote or the
 * line's end. An unterminated comment ends the text.
 */
#include "judge/ctoken.h"
#include "judge/names.h"
#include "util/array.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The multi-character punctuators of C11 (digraphs included), longest
 * first. */
static const char *const punctuators[] = {
    "%:%:", "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "*=",   "/=",  "%=",  "+=",  "-=", "&=", "^=", "|=", "##", "<:", ":>", "<%", "%>", "%:"};

static bool is_ident_char(int c, bool first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

static int push(struct ctok **t, size_t *n, size_t *cap, struct ctok tok)
{
    if (ARRAY_RESERVE(*t, *n, *cap, 256) < 0)
        return -1;
    (*t)[(*n)++] = tok;
    return 0;
}

/* The length of the punctuator at s[0..len) (1 unless munching). */
static size_t punct_len(const char *s, size_t len, bool munch)
{
    for (size_t k = 0; munch && k < sizeof punctuators / sizeof *punctuators; k++) {
        size_t m = strlen(punctuators[k]);
        if (m <= len && !memcmp(punctuators[k], s, m))
            return m;
    }
    return 1;
}

int ctok_lex(const char *s, size_t len, unsigned flags, struct ctok **out, size_t *n_out)
{
    struct ctok *t = NULL;
    size_t n = 0, cap = 0, i = 0;
    int line = 1;
    bool line_start = true, directive = false;
    bool keep = flags & CTOK_DIRECTIVES, munch = flags & CTOK_MUNCH;
    while (i < len) {
        char c = s[i];
        if (keep && c == '\\' && i + 1 < len && s[i + 1] == '\n') { /* a continued line */
            line++;
            i += 2;
            continue;
        }
        if (c == '\n') {
            if (directive && push(&t, &n, &cap, (struct ctok){CTOK_END, i, 0, line}) < 0)
                goto fail;
            directive = false;
            line++;
            line_start = true;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\0') {
            i++;
            continue;
        }
        if (line_start && c == '#' && keep) {
            if (push(&t, &n, &cap, (struct ctok){CTOK_DIRECTIVE, i, 1, line}) < 0)
                goto fail;
            directive = true;
            line_start = false;
            i++;
            continue;
        }
        if (line_start && c == '#') { /* a preprocessor line, with its continuations */
            while (i < len && s[i] != '\n') {
                if (s[i] == '\\' && i + 1 < len && s[i + 1] == '\n') {
                    line++;
                    i++;
                }
                i++;
            }
            continue;
        }
        line_start = false;
        if (c == '/' && i + 1 < len && s[i + 1] == '/') {
            while (i < len && s[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            i += 2;
            while (i < len && !(s[i] == '*' && i + 1 < len && s[i + 1] == '/')) {
                line += s[i] == '\n';
                i++;
            }
            i = i + 2 < len ? i + 2 : len;
            continue;
        }
        struct ctok tok = {CTOK_PUNCT, i, 0, line};
        if (is_ident_char((unsigned char)c, true)) {
            while (i < len && is_ident_char((unsigned char)s[i], false))
                i++;
            tok.kind = names_c_keyword(s + tok.off, i - tok.off) ? CTOK_KEYWORD : CTOK_IDENT;
        } else if ((c >= '0' && c <= '9') ||
                   (c == '.' && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9')) {
            while (i < len &&
                   (is_ident_char((unsigned char)s[i], false) || s[i] == '.' ||
                    ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E'))))
                i++;
            tok.kind = CTOK_NUMBER;
        } else if (c == '"' || c == '\'') {
            i++;
            while (i < len && s[i] != c && s[i] != '\n') {
                if (s[i] == '\\' && i + 1 < len)
                    i++;
                i++;
            }
            if (i < len && s[i] == c)
                i++;
            tok.kind = CTOK_STRING;
        } else {
            i += punct_len(s + i, len - i, munch);
        }
        tok.len = i - tok.off;
        if (push(&t, &n, &cap, tok) < 0)
            goto fail;
    }
    if (directive && push(&t, &n, &cap, (struct ctok){CTOK_END, len, 0, line}) < 0)
        goto fail;
    *out = t;
    *n_out = n;
    return 0;
fail:
    free(t);
    return -1;
}
