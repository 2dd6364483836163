/*
 * jsonget — typed getters for validating a JSON document written by a
 * person (problem.json), each naming the offending field on failure.
 *
 * Every getter takes the path of the object it reads from, as it would be
 * written in the document ("" for the top level, "params[3]",
 * "tests[0].generators.query"), and on failure returns -1 with a message
 * such as "params[3].role: must be a string" in the caller's buffer
 * (errbuf.h). Strings handed out are borrowed from the JSON tree.
 */
#ifndef ATTNJUDGE_JSONGET_H
#define ATTNJUDGE_JSONGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define JSONGET_PATH_LEN 256 /* a field path such as "tests[12].generators.query.std" */

/* Formats a field path into out[JSONGET_PATH_LEN]. A path too long for the
 * buffer is cut: it only ever appears in messages. */
void jsonget_path(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Joins an object's path and a key: ("", "slug") -> "slug",
 * ("params[2]", "role") -> "params[2].role". */
void jsonget_path_key(char *out, const char *path, const char *key);

/* An array's path and an index: ("params", 2) -> "params[2]". */
void jsonget_path_index(char *out, const char *path, size_t i);

/* Refuses keys of obj (at path) not in allowed (NULL-terminated): a typo
 * such as "nulable" must not be silently ignored. */
int jsonget_keys(json_t *obj, const char *path, const char *const *allowed, char *err,
                 size_t errlen);

/* Reports key as missing from the object at path; always returns -1. */
int jsonget_missing(const char *path, const char *key, char *err, size_t errlen);

/* A string member without NUL characters; *out borrowed, NULL if absent and
 * not required. */
int jsonget_string(json_t *obj, const char *path, const char *key, bool required, const char **out,
                   char *err, size_t errlen);

/* An integer member in [min, max]. */
int jsonget_int(json_t *obj, const char *path, const char *key, int64_t min, int64_t max,
                int64_t *out, char *err, size_t errlen);

/* A number member (integer or real). */
int jsonget_number(json_t *obj, const char *path, const char *key, double *out, char *err,
                   size_t errlen);

/* An optional array member of at most max strings, each accepted by valid
 * (may be NULL; what it checks is named by what, e.g. "a valid slug"). On 0,
 * *out is a new NULL-terminated array of *n_out new strings (NULL if the
 * member is absent). On -1, whatever was copied is in *out and *n_out for
 * the caller to free as usual. */
int jsonget_strings(json_t *obj, const char *key, size_t max, bool (*valid)(const char *),
                    const char *what, char ***out, size_t *n_out, char *err, size_t errlen);

#endif
