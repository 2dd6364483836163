/*
 * similarity — how much of one C source is in another, by winnowed
 * fingerprints of normalized tokens, as MOSS does (Schleimer, Wilkerson and
 * Aiken, "Winnowing: local algorithms for document fingerprinting", SIGMOD
 * 2003). For instructors' integrity checks (docs/integrity.md).
 *
 * Normalization: comments, whitespace and preprocessor lines are dropped;
 * every identifier that is not a C keyword becomes one token class, as do
 * number literals and string or character literals; keywords, operators
 * and punctuation stay themselves. So renaming variables, reformatting
 * and rewording comments change nothing. Every run of SIM_K tokens is
 * hashed (the noise threshold: shorter shared runs are ignored), and of
 * each window of SIM_W consecutive hashes the smallest is kept (the
 * guarantee: any shared run of SIM_K + SIM_W - 1 tokens or more is found).
 */
#ifndef ATTNJUDGE_JUDGE_SIMILARITY_H
#define ATTNJUDGE_JUDGE_SIMILARITY_H

#include <stddef.h>
#include <stdint.h>

#define SIM_K 12 /* tokens per k-gram: the noise threshold */
#define SIM_W 8  /* k-grams per window */

/* One fingerprint: a k-gram's hash and the source lines it spans. */
struct sim_print {
    uint64_t hash;
    int first_line, last_line; /* 1-based */
};

/* A document's fingerprints, sorted by hash. */
struct sim_doc {
    struct sim_print *p;
    size_t n;
};

/* A fragment both documents share: line ranges in each. */
struct sim_match {
    int a_first, a_last, b_first, b_last;
};

/* Fingerprints of text (len bytes; NULs and bad bytes are safe). 0, or -1
 * when out of memory. A text of fewer than SIM_K tokens has none. */
int sim_doc_build(const char *text, size_t len, struct sim_doc *d);
/* Every k-gram of text, not only the winnowed ones: a base to exclude
 * (sim_doc_exclude), so that no k-gram of it survives in a document, even
 * one that the document's own windows select and the base's did not. */
int sim_base_build(const char *text, size_t len, struct sim_doc *d);
void sim_doc_free(struct sim_doc *d);

/* Drops from d every fingerprint that base (sim_base_build) has: starter
 * code, the statement's examples, the reference — text nobody copied from
 * a classmate. */
void sim_doc_exclude(struct sim_doc *d, const struct sim_doc *base);

/* The share of fingerprints a and b have in common: shared distinct hashes
 * over the smaller document's distinct hashes, 0 to 1 (0 when either has
 * none). With matches non-NULL, also the shared fragments as merged line
 * ranges, in a's order (*matches malloc'd, *n_matches; the caller frees).
 * Returns -1 when out of memory. */
double sim_compare(const struct sim_doc *a, const struct sim_doc *b, struct sim_match **matches,
                   size_t *n_matches);

#endif
