/*
 * similarity — winnowed fingerprints of normalized C (similarity.h).
 *
 * Cost: tokenizing and hashing are linear in the text (each k-gram hash is
 * computed from its SIM_K token codes); winnowing is O(n × SIM_W);
 * comparing two documents is O(|a| log |b|) by binary search in b's
 * sorted fingerprints, so n students cost n²/2 such comparisons, none
 * quadratic in the text.
 */
#include "judge/similarity.h"
#include "judge/ctoken.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A token: a code (its class, or its text's hash for keywords and
 * punctuation) and its line. */
struct token {
    uint32_t code;
    int line;
};

enum { CODE_IDENT = 1, CODE_NUMBER = 2, CODE_STRING = 3 };

/* Besides C11's keywords (names.h): the names every solution spells the
 * same way, so that they tell code apart as keywords do. */
static const char *const keywords[] = {"_Bool", "size_t",  "NULL",    "bool",    "true",
                                       "false", "int64_t", "uint8_t", "int32_t", "uint64_t"};

static uint32_t fnv32(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h | 0x100; /* never one of the class codes */
}

static int push(struct token **t, size_t *n, size_t *cap, uint32_t code, int line)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        struct token *v = realloc(*t, c * sizeof *v);
        if (!v)
            return -1;
        *t = v;
        *cap = c;
    }
    (*t)[(*n)++] = (struct token){code, line};
    return 0;
}

/* The normalized tokens of text; -1 when out of memory. */
static int tokenize(const char *s, size_t len, struct token **out, size_t *n_out)
{
    struct ctok *c = NULL;
    struct token *t = NULL;
    size_t nc = 0, n = 0, cap = 0;
    if (ctok_lex(s, len, 0, &c, &nc) < 0)
        return -1;
    for (size_t i = 0; i < nc; i++) {
        const char *at = s + c[i].off;
        size_t m = c[i].len;
        uint32_t code = c[i].kind == CTOK_NUMBER   ? CODE_NUMBER
                        : c[i].kind == CTOK_STRING ? CODE_STRING
                        : c[i].kind == CTOK_IDENT  ? CODE_IDENT
                                                   : fnv32(at, m);
        for (size_t k = 0; code == CODE_IDENT && k < sizeof keywords / sizeof *keywords; k++)
            if (strlen(keywords[k]) == m && !memcmp(keywords[k], at, m)) {
                code = fnv32(at, m);
                break;
            }
        if (push(&t, &n, &cap, code, c[i].line) < 0) {
            free(t);
            free(c);
            return -1;
        }
    }
    free(c);
    *out = t;
    *n_out = n;
    return 0;
}

static int cmp_print(const void *a, const void *b)
{
    const struct sim_print *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return x->first_line - y->first_line;
}

/* Fingerprints of text: the winnowed ones, or (every) all k-grams. */
static int build_doc(const char *text, size_t len, bool every, struct sim_doc *d)
{
    struct token *t = NULL;
    size_t n = 0;
    uint64_t *h = NULL;
    memset(d, 0, sizeof *d);
    if (tokenize(text, len, &t, &n) < 0)
        return -1;
    if (n < SIM_K) {
        free(t);
        return 0;
    }
    size_t g = n - SIM_K + 1; /* k-grams */
    if (!(h = malloc(g * sizeof *h)) || !(d->p = malloc(g * sizeof *d->p))) {
        free(t);
        free(h);
        return -1;
    }
    for (size_t i = 0; i < g; i++) {
        uint64_t x = 1469598103934665603ull;
        for (size_t k = 0; k < SIM_K; k++)
            x = (x ^ t[i + k].code) * 1099511628211ull;
        h[i] = x;
    }
    /* Winnowing: the smallest hash of each window (the rightmost on ties),
     * recorded once per position. A text shorter than a window keeps its
     * one smallest. */
    size_t w = every ? 1 : g < SIM_W ? g : SIM_W, last = (size_t)-1;
    for (size_t start = 0; start + w <= g; start++) {
        size_t best = start;
        for (size_t i = start + 1; i < start + w; i++)
            if (h[i] <= h[best])
                best = i;
        if (best != last) {
            d->p[d->n++] = (struct sim_print){h[best], t[best].line, t[best + SIM_K - 1].line};
            last = best;
        }
    }
    qsort(d->p, d->n, sizeof *d->p, cmp_print);
    free(h);
    free(t);
    return 0;
}

int sim_doc_build(const char *text, size_t len, struct sim_doc *d)
{
    return build_doc(text, len, false, d);
}

int sim_base_build(const char *text, size_t len, struct sim_doc *d)
{
    return build_doc(text, len, true, d);
}

void sim_doc_free(struct sim_doc *d)
{
    free(d->p);
    memset(d, 0, sizeof *d);
}

/* Index of the first fingerprint of d with hash h, or d->n. */
static size_t find(const struct sim_doc *d, uint64_t h)
{
    size_t lo = 0, hi = d->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->p[mid].hash < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->n && d->p[lo].hash == h ? lo : d->n;
}

void sim_doc_exclude(struct sim_doc *d, const struct sim_doc *base)
{
    size_t k = 0;
    for (size_t i = 0; i < d->n; i++)
        if (find(base, d->p[i].hash) == base->n)
            d->p[k++] = d->p[i];
    d->n = k;
}

static size_t distinct(const struct sim_doc *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++)
        n += i == 0 || d->p[i].hash != d->p[i - 1].hash;
    return n;
}

static int cmp_match(const void *a, const void *b)
{
    const struct sim_match *x = a, *y = b;
    if (x->a_first != y->a_first)
        return x->a_first - y->a_first;
    return x->b_first - y->b_first;
}

/* Merges matches whose ranges touch or overlap in both documents. */
static size_t merge(struct sim_match *m, size_t n)
{
    if (!n)
        return 0;
    qsort(m, n, sizeof *m, cmp_match);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        struct sim_match *c = &m[k];
        if (m[i].a_first <= c->a_last + 1 && m[i].b_first <= c->b_last + 1 &&
            m[i].b_last >= c->b_first - 1) {
            c->a_last = m[i].a_last > c->a_last ? m[i].a_last : c->a_last;
            c->b_first = m[i].b_first < c->b_first ? m[i].b_first : c->b_first;
            c->b_last = m[i].b_last > c->b_last ? m[i].b_last : c->b_last;
        } else {
            m[++k] = m[i];
        }
    }
    return k + 1;
}

double sim_compare(const struct sim_doc *a, const struct sim_doc *b, struct sim_match **matches,
                   size_t *n_matches)
{
    size_t shared = 0, nm = 0;
    struct sim_match *m = NULL;
    if (matches) {
        *matches = NULL;
        *n_matches = 0;
        if (a->n && !(m = malloc(a->n * sizeof *m)))
            return -1;
    }
    for (size_t i = 0; i < a->n; i++) {
        size_t j = find(b, a->p[i].hash);
        if (j == b->n)
            continue;
        shared += i == 0 || a->p[i].hash != a->p[i - 1].hash;
        if (m)
            m[nm++] = (struct sim_match){a->p[i].first_line, a->p[i].last_line, b->p[j].first_line,
                                         b->p[j].last_line};
    }
    size_t da = distinct(a), db = distinct(b), small = da < db ? da : db;
    if (m) {
        *n_matches = merge(m, nm);
        *matches = m;
    }
    return small ? (double)shared / (double)small : 0;
}
