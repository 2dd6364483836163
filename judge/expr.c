/*
 * expr — integer expressions over named dimensions.
 *
 * Theory of operation. A problem package writes tensor shapes ("3*d_model")
 * and constraints ("d_model % num_heads == 0") as small C-like expressions.
 * expr_parse() turns the text into a tree with a recursive-descent parser,
 * one function per C precedence level:
 *
 *     ||  <  &&  <  == !=  <  < <= > >=  <  + -  <  * / %  <  unary - ! +
 *
 * expr_eval() walks the tree in 64-bit signed arithmetic. The text comes from
 * instructors' packages (uploaded over HTTP), so nothing here may crash or
 * invoke undefined behaviour: overflow and division by zero are reported as
 * errors, && and || short-circuit as in C (so "h > 0 && d % h == 0" is safe),
 * and the input length and nesting depth are bounded so that the recursion
 * of parse, eval and free cannot exhaust the stack.
 */
#include "judge/expr.h"
#include "judge/errbuf.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest accepted text, bytes. Bounds the depth of any tree we build. */
#define EXPR_MAX_TEXT 1024
/* Deepest nesting of parentheses and unary operators. */
#define EXPR_MAX_NEST 64

enum expr_op {
    OP_NUM,
    OP_NAME,
    OP_NEG,
    OP_NOT,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_ADD,
    OP_SUB,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_EQ,
    OP_NE,
    OP_AND,
    OP_OR,
};

struct expr {
    enum expr_op op;
    int64_t value;      /* OP_NUM */
    char *name;         /* OP_NAME */
    struct expr *a, *b; /* operands: a for unary, a and b for binary */
};

/* One binary operator as written, longest spellings first in each level so
 * that "<=" is not read as "<" followed by "=". */
struct binop {
    const char *text;
    enum expr_op op;
};

static const struct binop level_or[] = {{"||", OP_OR}, {NULL, 0}};
static const struct binop level_and[] = {{"&&", OP_AND}, {NULL, 0}};
static const struct binop level_eq[] = {{"==", OP_EQ}, {"!=", OP_NE}, {NULL, 0}};
static const struct binop level_rel[] = {
    {"<=", OP_LE}, {">=", OP_GE}, {"<", OP_LT}, {">", OP_GT}, {NULL, 0}};
static const struct binop level_add[] = {{"+", OP_ADD}, {"-", OP_SUB}, {NULL, 0}};
static const struct binop level_mul[] = {{"*", OP_MUL}, {"/", OP_DIV}, {"%", OP_MOD}, {NULL, 0}};

/* Loosest first; parse_level(i) parses operands with parse_level(i + 1). */
static const struct binop *const levels[] = {
    level_or, level_and, level_eq, level_rel, level_add, level_mul,
};
#define N_LEVELS (sizeof levels / sizeof levels[0])

struct parser {
    const char *text;
    size_t pos;
    int nest;
    char *err;
    size_t errlen;
    bool failed;
};

static void fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the first error only: later ones are consequences of it. */
static void fail(struct parser *ps, const char *fmt, ...)
{
    va_list ap;

    if (ps->failed)
        return;
    ps->failed = true;
    if (ps->err && ps->errlen) {
        va_start(ap, fmt);
        vsnprintf(ps->err, ps->errlen, fmt, ap);
        va_end(ap);
    }
}

static bool is_name_start(int c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static bool is_name_char(int c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static void skip_space(struct parser *ps)
{
    while (isspace((unsigned char)ps->text[ps->pos]))
        ps->pos++;
}

/* Reports the token at the current position as unexpected, quoting a whole
 * name so that "a bc" says "unexpected 'bc'" rather than "unexpected 'b'". */
static void fail_unexpected(struct parser *ps)
{
    const char *s = ps->text + ps->pos;
    size_t col = ps->pos + 1;
    size_t n = 1;

    if (*s == '\0') {
        fail(ps, "unexpected end of expression at column %zu", col);
        return;
    }
    if (is_name_char(*s))
        while (is_name_char(s[n]))
            n++;
    if (*s == '=' && s[1] != '=')
        fail(ps, "unexpected '=' at column %zu (comparison is '==')", col);
    else if (isprint((unsigned char)*s))
        fail(ps, "unexpected '%.*s' at column %zu", (int)n, s, col);
    else
        fail(ps, "unexpected byte 0x%02x at column %zu", (unsigned char)*s, col);
}

static struct expr *node_new(struct parser *ps, enum expr_op op)
{
    struct expr *e = calloc(1, sizeof *e);

    if (!e)
        fail(ps, "out of memory");
    else
        e->op = op;
    return e;
}

static struct expr *parse_level(struct parser *ps, size_t level);

static struct expr *parse_primary(struct parser *ps)
{
    const char *s;
    struct expr *e;
    size_t start, n;

    skip_space(ps);
    s = ps->text + ps->pos;
    start = ps->pos;

    if (isdigit((unsigned char)*s)) {
        int64_t v = 0;

        for (n = 0; isdigit((unsigned char)s[n]); n++) {
            if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[n] - '0', &v)) {
                fail(ps, "number too large at column %zu", start + 1);
                return NULL;
            }
        }
        if (is_name_char(s[n])) {
            ps->pos += n;
            fail_unexpected(ps);
            return NULL;
        }
        ps->pos += n;
        e = node_new(ps, OP_NUM);
        if (e)
            e->value = v;
        return e;
    }

    if (is_name_start(*s)) {
        for (n = 0; is_name_char(s[n]); n++)
            ;
        e = node_new(ps, OP_NAME);
        if (!e)
            return NULL;
        e->name = strndup(s, n);
        if (!e->name) {
            free(e);
            fail(ps, "out of memory");
            return NULL;
        }
        ps->pos += n;
        return e;
    }

    if (*s == '(') {
        ps->pos++;
        e = parse_level(ps, 0);
        if (!e)
            return NULL;
        skip_space(ps);
        if (ps->text[ps->pos] != ')') {
            if (ps->text[ps->pos] == '\0')
                fail(ps, "missing ')' for '(' at column %zu", start + 1);
            else
                fail_unexpected(ps);
            expr_free(e);
            return NULL;
        }
        ps->pos++;
        return e;
    }

    fail_unexpected(ps);
    return NULL;
}

static struct expr *parse_unary(struct parser *ps)
{
    struct expr *e, *operand;
    char c;

    skip_space(ps);
    c = ps->text[ps->pos];
    /* "!=" where an operand should start is an error, reported by primary. */
    if ((c == '-' || c == '+' || c == '!') && ps->text[ps->pos + 1] != '=') {
        if (++ps->nest > EXPR_MAX_NEST) {
            fail(ps, "expression nested too deeply at column %zu", ps->pos + 1);
            return NULL;
        }
        ps->pos++;
        operand = parse_unary(ps);
        ps->nest--;
        if (!operand || c == '+')
            return operand;
        e = node_new(ps, c == '-' ? OP_NEG : OP_NOT);
        if (!e) {
            expr_free(operand);
            return NULL;
        }
        e->a = operand;
        return e;
    }

    if (c == '(') {
        struct expr *inner;

        if (++ps->nest > EXPR_MAX_NEST) {
            fail(ps, "expression nested too deeply at column %zu", ps->pos + 1);
            return NULL;
        }
        inner = parse_primary(ps);
        ps->nest--;
        return inner;
    }
    return parse_primary(ps);
}

/* Matches one of the level's operators at the current position. */
static const struct binop *match_binop(struct parser *ps, const struct binop *ops)
{
    const char *s;

    skip_space(ps);
    s = ps->text + ps->pos;
    for (; ops->text; ops++) {
        size_t n = strlen(ops->text);

        if (strncmp(s, ops->text, n) != 0)
            continue;
        /* A one-character operator doubled or followed by '=' is a C
         * operator we do not support ("<<", "**", "%%", "*="): no match, so
         * the error points at it. "a - -b" and "a + +b" are fine. */
        if (n == 1 && (s[1] == '=' || s[1] == s[0]) && s[0] != '-' && s[0] != '+')
            continue;
        return ops;
    }
    return NULL;
}

static struct expr *parse_level(struct parser *ps, size_t level)
{
    struct expr *lhs, *rhs, *e;
    const struct binop *op;

    if (level == N_LEVELS)
        return parse_unary(ps);

    lhs = parse_level(ps, level + 1);
    if (!lhs)
        return NULL;
    /* Left-associative: a - b - c is (a - b) - c. */
    while ((op = match_binop(ps, levels[level])) != NULL) {
        ps->pos += strlen(op->text);
        rhs = parse_level(ps, level + 1);
        if (!rhs) {
            expr_free(lhs);
            return NULL;
        }
        e = node_new(ps, op->op);
        if (!e) {
            expr_free(lhs);
            expr_free(rhs);
            return NULL;
        }
        e->a = lhs;
        e->b = rhs;
        lhs = e;
    }
    return lhs;
}

struct expr *expr_parse(const char *text, char *err, size_t errlen)
{
    struct parser ps = {.text = text, .err = err, .errlen = errlen};
    struct expr *e;
    size_t len;

    if (!text) {
        errbuf_set(err, errlen, "empty expression");
        return NULL;
    }
    len = strnlen(text, EXPR_MAX_TEXT + 1);
    if (len > EXPR_MAX_TEXT) {
        errbuf_set(err, errlen, "expression longer than %d characters", EXPR_MAX_TEXT);
        return NULL;
    }
    skip_space(&ps);
    if (text[ps.pos] == '\0') {
        errbuf_set(err, errlen, "empty expression");
        return NULL;
    }

    e = parse_level(&ps, 0);
    if (!e)
        return NULL;
    skip_space(&ps);
    if (text[ps.pos] != '\0') {
        if (text[ps.pos] == ')')
            fail(&ps, "unexpected ')' at column %zu (no matching '(')", ps.pos + 1);
        else
            fail_unexpected(&ps);
        expr_free(e);
        return NULL;
    }
    return e;
}

void expr_free(struct expr *e)
{
    if (!e)
        return;
    expr_free(e->a);
    expr_free(e->b);
    free(e->name);
    free(e);
}

static int eval_node(const struct expr *e, expr_lookup_fn lookup, void *ctx, int64_t *value,
                     char *err, size_t errlen)
{
    int64_t a, b;

    switch (e->op) {
    case OP_NUM: *value = e->value; return 0;
    case OP_NAME:
        if (!lookup || lookup(ctx, e->name, value) != 0) {
            errbuf_set(err, errlen, "unknown dimension '%s'", e->name);
            return -1;
        }
        return 0;
    case OP_NEG:
        if (eval_node(e->a, lookup, ctx, &a, err, errlen) != 0)
            return -1;
        if (__builtin_sub_overflow((int64_t)0, a, value))
            goto overflow;
        return 0;
    case OP_NOT:
        if (eval_node(e->a, lookup, ctx, &a, err, errlen) != 0)
            return -1;
        *value = !a;
        return 0;
    case OP_AND:
    case OP_OR:
        /* Short-circuit as in C: the right side is evaluated (and may fail)
         * only when it decides the result. */
        if (eval_node(e->a, lookup, ctx, &a, err, errlen) != 0)
            return -1;
        if (e->op == OP_AND ? !a : a) {
            *value = e->op == OP_OR;
            return 0;
        }
        if (eval_node(e->b, lookup, ctx, &b, err, errlen) != 0)
            return -1;
        *value = b != 0;
        return 0;
    default: break;
    }

    if (eval_node(e->a, lookup, ctx, &a, err, errlen) != 0 ||
        eval_node(e->b, lookup, ctx, &b, err, errlen) != 0)
        return -1;

    switch (e->op) {
    case OP_ADD:
        if (__builtin_add_overflow(a, b, value))
            goto overflow;
        return 0;
    case OP_SUB:
        if (__builtin_sub_overflow(a, b, value))
            goto overflow;
        return 0;
    case OP_MUL:
        if (__builtin_mul_overflow(a, b, value))
            goto overflow;
        return 0;
    case OP_DIV:
    case OP_MOD:
        if (b == 0) {
            errbuf_set(err, errlen, "division by zero");
            return -1;
        }
        /* INT64_MIN / -1 does not fit, and C leaves both it and the
         * matching % undefined. */
        if (a == INT64_MIN && b == -1)
            goto overflow;
        *value = e->op == OP_DIV ? a / b : a % b;
        return 0;
    case OP_LT: *value = a < b; return 0;
    case OP_LE: *value = a <= b; return 0;
    case OP_GT: *value = a > b; return 0;
    case OP_GE: *value = a >= b; return 0;
    case OP_EQ: *value = a == b; return 0;
    case OP_NE: *value = a != b; return 0;
    default: errbuf_set(err, errlen, "internal error: bad expression node"); return -1;
    }

overflow:
    errbuf_set(err, errlen, "integer overflow");
    return -1;
}

int expr_eval(const struct expr *e, expr_lookup_fn lookup, void *ctx, int64_t *value, char *err,
              size_t errlen)
{
    int64_t v;

    if (!e) {
        errbuf_set(err, errlen, "empty expression");
        return -1;
    }
    if (eval_node(e, lookup, ctx, &v, err, errlen) != 0)
        return -1;
    *value = v;
    return 0;
}

void expr_foreach_name(const struct expr *e, void (*fn)(void *ctx, const char *name), void *ctx)
{
    if (!e)
        return;
    if (e->op == OP_NAME)
        fn(ctx, e->name);
    expr_foreach_name(e->a, fn, ctx);
    expr_foreach_name(e->b, fn, ctx);
}
