/*
 * request — the checks every handler makes of what a request carries: its
 * JSON body, ids and booleans in the path or query, string field lengths;
 * and the answers they share: Retry-After, the logged 500, a problem the
 * caller may not use.
 *
 * Everything in a request is hostile until checked here or by the
 * handler; a refusal is the 4xx JSON error of docs/api.md, and never
 * carries internal paths or database messages (those go to the log).
 */
#ifndef ATTNJUDGE_SERVER_REQUEST_H
#define ATTNJUDGE_SERVER_REQUEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "server/app.h"

/* The check every JSON route makes of its body: Content-Type
 * application/json (charset UTF-8 at most), a body (NULL when empty; len
 * bytes, need not be NUL-terminated) that parses as one JSON object without
 * duplicate keys, whose null members count as absent, unpacked by
 * json_unpack_ex in strict mode with fmt and the pointers after it (so an
 * unknown field, a missing one or a wrong type is refused; shape says what
 * the route takes, for the message). Returns NULL with the object in *root
 * (it owns the unpacked strings; caller decrefs), or the 4xx response
 * (caller frees) with *root NULL. Exported for tests/fuzz. */
struct http_response *request_json_body(const char *content_type, const char *body, size_t len,
                                        json_t **root, const char *shape, const char *fmt, ...);
/* The same with a va_list. */
struct http_response *request_json_vbody(const char *content_type, const char *body, size_t len,
                                         json_t **root, const char *shape, const char *fmt,
                                         va_list ap);
/* request_json_body of req's Content-Type and body. */
struct http_response *request_body(const struct http_request *req, json_t **root, const char *shape,
                                   const char *fmt, ...);
/* A route that takes no fields: an empty body, or {} checked as above.
 * NULL, or the 4xx. */
struct http_response *request_no_fields(const struct http_request *req);

/* Whether a Content-Type header names application/json (with at most a
 * UTF-8 charset). */
bool request_is_json_type(const char *content_type);

/* Checks that a string field unpacked with its length (n bytes) is within
 * [min, max]; NULL (an absent optional field) passes. NULL, or the 400. */
struct http_response *request_field_len(const char *key, const char *v, size_t n, size_t min,
                                        size_t max);

/* A positive decimal id of at most 15 digits into *out: true, or false. */
bool request_id(const char *s, int64_t *out);

/* A query's boolean, "1"/"true" or "0"/"false": true, or false. */
bool request_bool(const char *s, bool *out);

/* Adds Retry-After: seconds (at least 1) to r; returns r. */
struct http_response *request_retry_after(struct http_response *r, int seconds);

/* Logs "where: " and s's error (or "failed" when s is NULL) and returns
 * the 500 whose message points at the log. */
struct http_response *request_internal(const char *where, struct store *s);

/* The problem of a submission, run or read by the caller: NULL when it may
 * be used, else the 404 (not offered to the caller) or, with for_submit,
 * the 409 problem_archived. */
struct http_response *request_problem_gate(struct app *a, const struct caller *me, const char *slug,
                                           bool for_submit);

/* The body of POST /api/submissions and POST /api/runs, {"problem",
 * "source"}, checked: a valid slug, a source of 1 to max_source_kib bytes.
 * Returns NULL with the object in *o (it owns the strings), or the 4xx
 * (*o NULL). */
struct http_response *request_source_body(struct app *a, struct http_request *req, json_t **o,
                                          const char **slug, const char **source, size_t *len);

#endif
