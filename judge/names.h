/*
 * names — what a problem package may call things: problem slugs, test
 * names, and the C identifiers of its function and parameters.
 *
 * Slugs and test names become parts of paths and URLs; identifiers become
 * part of generated C code. So the rules are strict and checked at load
 * time, before any of those uses.
 */
#ifndef ATTNJUDGE_NAMES_H
#define ATTNJUDGE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define NAMES_MAX_LEN 63 /* identifiers and test names, bytes */

/* True if slug is a valid problem slug: [a-z0-9][a-z0-9-]{0,62}. */
bool names_slug_valid(const char *slug);

/* True if name is a valid test name: [a-z0-9][a-z0-9_-]*, at most
 * NAMES_MAX_LEN characters. */
bool names_test_valid(const char *name);

/* Returns NULL if name is usable as a C identifier in the generated
 * prototype and harness, else why not ("is not a C identifier", "is too
 * long", "is a reserved identifier", "is a reserved C name"). */
const char *names_c_identifier_error(const char *name);

/* True if s[0..len) is one of C11's keywords ("while", "restrict", ...;
 * not the _Capitalised ones). */
bool names_c_keyword(const char *s, size_t len);

#endif
