/*
 * expr — integer expressions over named dimensions.
 *
 * Shapes ("3*d_model") and constraints ("d_model % num_heads == 0") in a
 * problem package are small C-like expressions. They are parsed once when the
 * package is loaded and evaluated for every test's dims.
 */
#ifndef ATTNJUDGE_EXPR_H
#define ATTNJUDGE_EXPR_H

#include <stddef.h>
#include <stdint.h>

struct expr;

/* Looks a dimension up by name: returns 0 and sets *value, or -1 if unknown. */
typedef int (*expr_lookup_fn)(void *ctx, const char *name, int64_t *value);

/* Parses text. Returns a new expression (free with expr_free) or NULL with a
 * message in err (e.g. "unexpected ')' at column 7"). */
struct expr *expr_parse(const char *text, char *err, size_t errlen);

/* Frees an expression; NULL is allowed. */
void expr_free(struct expr *e);

/* Evaluates e. Returns 0 and sets *value, or -1 with a message in err
 * (unknown name, division by zero, overflow). Comparisons give 0 or 1. */
int expr_eval(const struct expr *e, expr_lookup_fn lookup, void *ctx, int64_t *value, char *err,
              size_t errlen);

/* Calls fn for every name the expression mentions (for validation). */
void expr_foreach_name(const struct expr *e, void (*fn)(void *ctx, const char *name), void *ctx);

#endif
