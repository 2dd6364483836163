/*
 * str — the small string helpers every layer would otherwise write again:
 * a NULL-safe copy, a formatted new string, and replacing every
 * occurrence of one text by another.
 *
 * Each returns a new string (caller frees) or NULL when out of memory; none
 * aborts, so a long-running server can answer an out-of-memory as a
 * failure of its own.
 */
#ifndef ATTNJUDGE_STR_H
#define ATTNJUDGE_STR_H

/* A copy of s, or NULL when s is NULL or out of memory. */
char *str_dup(const char *s);

/* The printf-formatted text as a new string, or NULL when out of memory. */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Replaces every occurrence of from by to in *s (reallocating). Returns 0,
 * or -1 (out of memory; *s unchanged). A NULL *s or an empty from changes
 * nothing. */
int str_replace_all(char **s, const char *from, const char *to);

#endif
