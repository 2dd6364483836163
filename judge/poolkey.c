/*
 * poolkey — the benchmark pool's key of a C source (poolkey.h).
 *
 * Three passes over the tokens. The first finds brackets and the names no
 * renaming may touch (in preprocessor lines, after '.' or '->', before
 * '('). The second recognises declarations of locals (a statement that
 * starts with a type, a for loop's first clause, a function definition's
 * parameters) with the tokens their scope spans. The third hashes every
 * token, a renamable name as its number. A name with even one appearance
 * outside the scope of its declarations keeps its spelling everywhere:
 * it may be a library's or the file's own. Cost: linear in the text, but
 * for sorting the declarations and checking each appearance of a name
 * against that name's declarations.
 */
#include "judge/poolkey.h"
#include "judge/ctoken.h"
#include "util/array.h"

#include <sodium.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A recognised declaration: the name's token and the tokens [start, end)
 * its scope spans (indices into the code tokens). */
struct decl {
    size_t name, start, end;
    size_t name_id; /* the name's number (reader.name), for sorting */
};

struct reader {
    const char *s;
    struct ctok *t; /* every token */
    size_t *code;   /* the tokens outside preprocessor lines, as indices into t */
    size_t nc;
    size_t *match; /* code index of each bracket's partner, SIZE_MAX otherwise */
    size_t *outer; /* code index of the innermost '{' around each token, SIZE_MAX at file scope */
    size_t *name;  /* for each token of t, its name's number (identifiers only) */
    size_t n_names;
    bool *keep;     /* per name: keeps its spelling */
    bool *declared; /* per name: has a recognised declaration */
    struct decl *d;
    size_t nd, dcap;
};

static const struct ctok *tok(const struct reader *r, size_t j)
{
    return &r->t[r->code[j]];
}

/* Whether code token j is text (an operator or keyword). */
static bool is(const struct reader *r, size_t j, const char *text)
{
    if (j >= r->nc)
        return false;
    const struct ctok *k = tok(r, j);
    return k->kind != CTOK_STRING && k->len == strlen(text) && !memcmp(r->s + k->off, text, k->len);
}

static bool is_ident(const struct reader *r, size_t j)
{
    return j < r->nc && tok(r, j)->kind == CTOK_IDENT;
}

static bool is_one_of(const struct reader *r, size_t j, const char *const *words)
{
    for (; *words; words++)
        if (is(r, j, *words))
            return true;
    return false;
}

static const char *const type_words[] = {"void",     "char",  "short",    "int",
                                         "long",     "float", "double",   "signed",
                                         "unsigned", "_Bool", "_Complex", NULL};
static const char *const qualifiers[] = {"const", "volatile", "restrict", NULL};
static const char *const storage[] = {"static",  "register",      "auto",    "inline",
                                      "typedef", "_Thread_local", "_Atomic", NULL};
static const char *const tags[] = {"struct", "union", "enum", NULL};

static uint64_t text_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Numbers the distinct identifiers' spellings, through an open-addressing
 * table of twice the tokens' count (linear in the text). */
static int number_names(struct reader *r, size_t nt)
{
    size_t size = 2;
    while (size < 2 * nt)
        size *= 2;
    size_t *slot = malloc(size * sizeof *slot); /* a token of each name, or SIZE_MAX */
    if (!slot)
        return -1;
    for (size_t k = 0; k < size; k++)
        slot[k] = SIZE_MAX;
    for (size_t i = 0; i < nt; i++) {
        const struct ctok *t = &r->t[i];
        if (t->kind != CTOK_IDENT)
            continue;
        size_t k = (size_t)text_hash(r->s + t->off, t->len) & (size - 1);
        while (slot[k] != SIZE_MAX && !(r->t[slot[k]].len == t->len &&
                                        !memcmp(r->s + r->t[slot[k]].off, r->s + t->off, t->len)))
            k = (k + 1) & (size - 1);
        if (slot[k] == SIZE_MAX) {
            slot[k] = i;
            r->name[i] = r->n_names++;
        } else {
            r->name[i] = r->name[slot[k]];
        }
    }
    free(slot);
    return 0;
}

/* Pairs brackets and finds each token's block. False when they do not
 * pair up: then nothing is renamed. */
static bool pair_brackets(struct reader *r)
{
    size_t depth = 0, block = SIZE_MAX;
    size_t *blocks = malloc((r->nc ? r->nc : 1) * sizeof *blocks);
    if (!blocks)
        return false;
    size_t nb = 0;
    bool ok = true;
    size_t *open = malloc((r->nc ? r->nc : 1) * sizeof *open);
    if (!open) {
        free(blocks);
        return false;
    }
    for (size_t j = 0; j < r->nc; j++) {
        r->match[j] = SIZE_MAX;
        r->outer[j] = block;
        if (is(r, j, "(") || is(r, j, "[") || is(r, j, "{")) {
            open[depth++] = j;
            if (is(r, j, "{")) {
                blocks[nb++] = block;
                block = j;
            }
        } else if (is(r, j, ")") || is(r, j, "]") || is(r, j, "}")) {
            const char *want = is(r, j, ")") ? "(" : is(r, j, "]") ? "[" : "{";
            if (!depth || !is(r, open[depth - 1], want)) {
                ok = false;
                break;
            }
            size_t o = open[--depth];
            r->match[o] = j;
            r->match[j] = o;
            if (*want == '{') {
                block = blocks[--nb];
                r->outer[j] = block;
            }
        }
    }
    free(open);
    free(blocks);
    return ok && depth == 0;
}

static int add_decl(struct reader *r, size_t name, size_t start, size_t end)
{
    if (ARRAY_RESERVE(r->d, r->nd, r->dcap, 64) < 0)
        return -1;
    r->d[r->nd++] = (struct decl){name, start, end, 0};
    r->declared[r->name[r->code[name]]] = true;
    return 0;
}

/* The declaration starting at code token j, if it is one, whose names are
 * in scope up to end. A type named by an identifier counts only as
 * "T x" or "T const x": "a * b" may be a product. */
static int try_decl(struct reader *r, size_t j, size_t end)
{
    size_t k = j;
    bool type = false;
    for (;;) {
        if (is(r, k, "extern"))
            return 0; /* names something outside the function */
        if (is_one_of(r, k, type_words)) {
            type = true;
            k++;
        } else if (is_one_of(r, k, qualifiers) || is_one_of(r, k, storage)) {
            k++;
        } else if (is_one_of(r, k, tags)) {
            if (!is_ident(r, k + 1) || is(r, k + 2, "{"))
                return 0;
            type = true;
            k += 2;
        } else if (!type && is_ident(r, k) && !r->keep[r->name[r->code[k]]] &&
                   (is_ident(r, k + 1) || is_one_of(r, k + 1, qualifiers))) {
            type = true;
            k++;
        } else {
            break;
        }
    }
    if (!type)
        return 0;
    for (;;) {
        while (is(r, k, "*") || is_one_of(r, k, qualifiers))
            k++;
        if (!is_ident(r, k) || is(r, k + 1, "("))
            return 0;
        if (add_decl(r, k, k, end) < 0)
            return -1;
        k++;
        while (is(r, k, "["))
            k = r->match[k] + 1;
        if (is(r, k, "=")) {
            for (k++; k < r->nc && !is(r, k, ",") && !is(r, k, ";"); k++) {
                if (is(r, k, ")") || is(r, k, "]") || is(r, k, "}"))
                    return 0;
                if (r->match[k] != SIZE_MAX)
                    k = r->match[k];
            }
        }
        if (!is(r, k, ","))
            return 0;
        k++;
    }
}

/* Where the scope of a for loop's declarations ends (exclusive): its
 * body's closing brace, or the end of a body without braces. A body that
 * is harder to follow ends the scope early: the names then keep their
 * spelling. */
static size_t for_end(const struct reader *r, size_t open)
{
    size_t k = r->match[open] + 1;
    if (is(r, k, "{"))
        return r->match[k];
    for (; k < r->nc; k++) {
        if (is(r, k, ";"))
            return k + 1;
        if (is(r, k, "{") || is(r, k, "}"))
            return k;
        if (r->match[k] != SIZE_MAX)
            k = r->match[k];
    }
    return k;
}

/* The parameters of the function definition whose list opens at code
 * token open: in each comma-separated part, its last identifier outside
 * brackets, when something precedes it (a lone "T" is an unnamed
 * parameter's type). Their scope: the list and the body. */
static int params(struct reader *r, size_t open)
{
    size_t close = r->match[open], end = r->match[close + 1];
    size_t part = open + 1, last = SIZE_MAX;
    for (size_t k = open + 1; k <= close; k++) {
        if (k == close || is(r, k, ",")) {
            if (last != SIZE_MAX && last > part && !is_one_of(r, last - 1, tags) &&
                add_decl(r, last, open, end) < 0)
                return -1;
            part = k + 1;
            last = SIZE_MAX;
        } else if (r->match[k] != SIZE_MAX) {
            k = r->match[k];
        } else if (is_ident(r, k)) {
            last = k;
        }
    }
    return 0;
}

static int find_decls(struct reader *r)
{
    for (size_t j = 0; j < r->nc; j++) {
        bool ends = is(r, j, "{") || is(r, j, ";") || is(r, j, "}");
        if (ends && j + 1 < r->nc && r->outer[j + 1] != SIZE_MAX &&
            try_decl(r, j + 1, r->match[r->outer[j + 1]]) < 0)
            return -1;
        if (is(r, j, "for") && is(r, j + 1, "(") && try_decl(r, j + 2, for_end(r, j + 1)) < 0)
            return -1;
        if (r->outer[j] == SIZE_MAX && is_ident(r, j) && is(r, j + 1, "(") &&
            is(r, r->match[j + 1] + 1, "{") && params(r, j + 1) < 0)
            return -1;
    }
    return 0;
}

/* Marks the names no renaming may touch; false when none may be renamed
 * at all (stringizing or pasting macros, offsetof). */
static bool mark_kept(struct reader *r, size_t nt)
{
    bool directive = false;
    for (size_t i = 0; i < nt; i++) {
        const struct ctok *k = &r->t[i];
        if (k->kind == CTOK_DIRECTIVE || k->kind == CTOK_END) {
            directive = k->kind == CTOK_DIRECTIVE;
            continue;
        }
        if (directive && k->kind == CTOK_PUNCT && r->s[k->off] == '#')
            return false;
        if (directive && k->kind == CTOK_PUNCT && k->len >= 2 && !memcmp(r->s + k->off, "%:", 2))
            return false;
        if (k->kind != CTOK_IDENT)
            continue;
        const char *text = r->s + k->off;
        if ((k->len == 8 && !memcmp(text, "offsetof", 8)) ||
            (k->len == 18 && !memcmp(text, "__builtin_offsetof", 18)))
            return false;
        if (directive)
            r->keep[r->name[i]] = true;
    }
    for (size_t j = 0; j < r->nc; j++)
        if (is_ident(r, j) &&
            ((j > 0 && (is(r, j - 1, ".") || is(r, j - 1, "->"))) || is(r, j + 1, "(")))
            r->keep[r->name[r->code[j]]] = true;
    return true;
}

static int cmp_decl_name(const void *a, const void *b)
{
    const struct decl *x = a, *y = b;
    return x->name_id < y->name_id ? -1 : x->name_id > y->name_id;
}

/* Keeps the spelling of every name with an appearance outside the scope
 * of its declarations, and of every name never declared. The
 * declarations are sorted by name, so that each appearance is checked
 * against its own name's only. */
static int mark_unbound(struct reader *r)
{
    size_t *first = malloc((r->n_names + 1) * sizeof *first); /* each name's first decl */
    if (!first)
        return -1;
    for (size_t k = 0; k < r->nd; k++)
        r->d[k].name_id = r->name[r->code[r->d[k].name]];
    if (r->nd)
        qsort(r->d, r->nd, sizeof *r->d, cmp_decl_name);
    for (size_t nm = 0; nm <= r->n_names; nm++)
        first[nm] = r->nd;
    for (size_t k = r->nd; k-- > 0;)
        first[r->d[k].name_id] = k;
    for (size_t j = 0; j < r->nc; j++) {
        if (!is_ident(r, j))
            continue;
        size_t nm = r->name[r->code[j]];
        if (r->keep[nm])
            continue;
        bool bound = false;
        for (size_t k = first[nm]; k < r->nd && r->d[k].name_id == nm && !bound; k++)
            bound = r->d[k].start <= j && j < r->d[k].end;
        if (!bound)
            r->keep[nm] = true;
    }
    for (size_t nm = 0; nm < r->n_names; nm++)
        if (!r->declared[nm])
            r->keep[nm] = true;
    free(first);
    return 0;
}

static void hash_u32(crypto_generichash_state *st, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    crypto_generichash_update(st, b, sizeof b);
}

int poolkey_of(const char *source, size_t len, char key[POOLKEY_LEN + 1])
{
    struct reader r = {.s = source};
    size_t nt = 0, *number = NULL;
    int rc = -1;
    if (ctok_lex(source, len, CTOK_DIRECTIVES | CTOK_MUNCH, &r.t, &nt) < 0)
        return -1;
    size_t cap = nt ? nt : 1;
    r.code = malloc(cap * sizeof *r.code);
    r.match = malloc(cap * sizeof *r.match);
    r.outer = malloc(cap * sizeof *r.outer);
    r.name = calloc(cap, sizeof *r.name);
    number = malloc(cap * sizeof *number);
    if (!r.code || !r.match || !r.outer || !r.name || !number || number_names(&r, nt) < 0)
        goto out;
    r.keep = calloc(r.n_names + 1, sizeof *r.keep);
    r.declared = calloc(r.n_names + 1, sizeof *r.declared);
    if (!r.keep || !r.declared)
        goto out;
    bool directive = false;
    for (size_t i = 0; i < nt; i++) {
        if (r.t[i].kind == CTOK_DIRECTIVE || r.t[i].kind == CTOK_END)
            directive = r.t[i].kind == CTOK_DIRECTIVE;
        else if (!directive)
            r.code[r.nc++] = i;
    }
    bool rename = mark_kept(&r, nt) && pair_brackets(&r);
    if (rename && find_decls(&r) < 0)
        goto out;
    if (rename && mark_unbound(&r) < 0)
        goto out;
    for (size_t nm = 0; nm < r.n_names; nm++)
        number[nm] = SIZE_MAX;

    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, 32);
    size_t next = 0;
    for (size_t i = 0; i < nt; i++) {
        const struct ctok *k = &r.t[i];
        unsigned char kind = (unsigned char)k->kind;
        if (k->kind == CTOK_IDENT && rename && !r.keep[r.name[i]]) {
            size_t *n = &number[r.name[i]];
            if (*n == SIZE_MAX)
                *n = next++;
            kind = 0xff; /* a renamed local: its number, not its spelling */
            crypto_generichash_update(&st, &kind, 1);
            hash_u32(&st, (uint32_t)*n);
            continue;
        }
        crypto_generichash_update(&st, &kind, 1);
        hash_u32(&st, (uint32_t)k->len);
        crypto_generichash_update(&st, (const unsigned char *)source + k->off, k->len);
    }
    unsigned char h[32];
    crypto_generichash_final(&st, h, sizeof h);
    sodium_bin2hex(key, POOLKEY_LEN + 1, h, sizeof h);
    rc = 0;
out:
    free(r.t);
    free(r.code);
    free(r.match);
    free(r.outer);
    free(r.name);
    free(r.keep);
    free(r.declared);
    free(r.d);
    free(number);
    return rc;
}
