/*
 * ctoken — the one C lexer of the judge's source comparisons: the
 * similarity check (similarity.h) and the benchmark pool's key
 * (poolkey.h) read a source through it, so that both agree on what a
 * comment, a literal or a token is.
 *
 * It is not the compiler's lexer: no macro is expanded and no trigraph
 * read. Comments and layout are dropped; everything else becomes a token
 * that points into the text. NULs and bad bytes are safe.
 */
#ifndef ATTNJUDGE_JUDGE_CTOKEN_H
#define ATTNJUDGE_JUDGE_CTOKEN_H

#include <stddef.h>

enum ctok_kind {
    CTOK_IDENT,     /* an identifier that is not a C11 keyword */
    CTOK_KEYWORD,   /* a C11 keyword (names_c_keyword) */
    CTOK_NUMBER,    /* a number literal, suffix included */
    CTOK_STRING,    /* a string or character literal, quotes included */
    CTOK_PUNCT,     /* an operator or punctuator */
    CTOK_DIRECTIVE, /* the '#' that opens a preprocessor line (CTOK_DIRECTIVES) */
    CTOK_END,       /* the end of that line (CTOK_DIRECTIVES) */
};

struct ctok {
    enum ctok_kind kind;
    size_t off, len; /* bytes of the text */
    int line;        /* 1-based */
};

/* Preprocessor lines come as CTOK_DIRECTIVE, their tokens, CTOK_END;
 * without it they are dropped, continuations included. */
#define CTOK_DIRECTIVES 1u
/* Operators are read as the compiler reads them, longest first ("++",
 * "->", "<<="), so that "a + ++b" and "a++ + b" differ; without it each
 * punctuation character is a token of its own. */
#define CTOK_MUNCH 2u

/* The tokens of text[0..len) (*out malloc'd, *n of them; the caller
 * frees *out). 0, or -1 when out of memory. */
int ctok_lex(const char *text, size_t len, unsigned flags, struct ctok **out, size_t *n);

#endif
