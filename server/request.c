/*
 * request — the checks of request.h, shared by every handler.
 *
 * Bodies must be declared application/json, parse as one JSON object
 * (jansson rejects invalid UTF-8, \u0000 and, with JSON_REJECT_DUPLICATES,
 * duplicate keys) and carry only the documented fields with the documented
 * types; slugs, usernames and ids are checked against their grammars before
 * they reach SQL (which binds every value anyway) or the filesystem.
 */
#include "server/request.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "judge/names.h"
#include "server/catalog.h"
#include "util/clock.h"

struct http_response *request_internal(const char *where, struct store *s)
{
    fprintf(stderr, "attnjudge: %s: %s\n", where, s ? store_error(s) : "failed");
    return http_error(500, "internal", "internal error; the server log has the details");
}

bool request_is_json_type(const char *ct)
{
    if (!ct || strncasecmp(ct, "application/json", 16))
        return false;
    ct += 16;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    if (*ct == '\0')
        return true;
    if (*ct != ';')
        return false;
    /* The only parameter that makes sense is charset, and it must be UTF-8. */
    ct++;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    return !strncasecmp(ct, "charset=utf-8", 13) || !strncasecmp(ct, "charset=\"utf-8\"", 15);
}

/* request_json_body of the request. */
struct http_response *request_body(const struct http_request *req, json_t **root, const char *shape,
                                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct http_response *r = request_json_vbody(http_header(req, "Content-Type"), req->body,
                                                 req->body_len, root, shape, fmt, ap);
    va_end(ap);
    return r;
}

struct http_response *request_json_body(const char *content_type, const char *body, size_t len,
                                        json_t **root, const char *shape, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct http_response *r = request_json_vbody(content_type, body, len, root, shape, fmt, ap);
    va_end(ap);
    return r;
}

struct http_response *request_json_vbody(const char *content_type, const char *body, size_t len,
                                         json_t **root, const char *shape, const char *fmt,
                                         va_list ap)
{
    json_error_t jerr;
    *root = NULL;
    if (!request_is_json_type(content_type))
        return http_error(415, "unsupported_media_type",
                          "send the body as Content-Type: application/json");
    if (!body)
        return http_error(400, "bad_json", "the request body is empty");
    json_t *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!o)
        return http_error(400, "bad_json", "invalid JSON at line %d, column %d: %s", jerr.line,
                          jerr.column, jerr.text);
    if (!json_is_object(o)) {
        json_decref(o);
        return http_error(400, "bad_json", "the body must be a JSON object");
    }
    const char *key;
    json_t *v, *tmp;
    json_object_foreach_safe(o, tmp, key, v)
    {
        if (json_is_null(v))
            json_object_del(o, key);
    }
    if (json_vunpack_ex(o, &jerr, JSON_STRICT, fmt, ap) != 0) {
        struct http_response *r =
            http_error(400, "invalid_request", "%s; this route takes %s", jerr.text, shape);
        json_decref(o);
        return r;
    }
    *root = o;
    return NULL;
}

struct http_response *request_field_len(const char *key, const char *v, size_t n, size_t min,
                                        size_t max)
{
    if (!v)
        return NULL;
    if (n < min)
        return http_error(400, "invalid_request", "field '%s' is too short (min %zu bytes)", key,
                          min);
    if (n > max)
        return http_error(400, "invalid_request", "field '%s' is too long (max %zu bytes)", key,
                          max);
    return NULL;
}

bool request_id(const char *s, int64_t *out)
{
    int64_t v = 0;
    if (!s || !*s || strlen(s) > 15)
        return false;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        v = v * 10 + (*p - '0');
    }
    *out = v;
    return v > 0;
}

bool request_bool(const char *s, bool *out)
{
    if (!strcmp(s, "1") || !strcmp(s, "true")) {
        *out = true;
        return true;
    }
    if (!strcmp(s, "0") || !strcmp(s, "false")) {
        *out = false;
        return true;
    }
    return false;
}

struct http_response *request_retry_after(struct http_response *r, int seconds)
{
    char v[16];
    snprintf(v, sizeof v, "%d", seconds < 1 ? 1 : seconds);
    http_add_header(r, "Retry-After", v);
    return r;
}

struct http_response *request_problem_gate(struct app *a, const struct caller *me, const char *slug,
                                           bool for_submit)
{
    int rc = catalog_access(a->catalog, slug, me->instructor, clock_wall_ms());
    if (rc == CATALOG_NOT_FOUND)
        return http_error(404, "not_found", "no problem '%s'", slug);
    if (rc == CATALOG_ARCHIVED && for_submit)
        return http_error(409, "problem_archived",
                          "problem '%s' is archived: it takes no more submissions", slug);
    return NULL;
}

struct http_response *request_source_body(struct app *a, struct http_request *req, json_t **o,
                                          const char **slug, const char **source, size_t *len)
{
    size_t n_slug = 0;
    struct http_response *r;
    *slug = *source = NULL;
    *len = 0;
    if ((r = request_body(req, o, "{\"problem\", \"source\": strings}", "{s:s%, s:s%}", "problem",
                          slug, &n_slug, "source", source, len)))
        return r;
    if ((r = request_field_len("problem", *slug, n_slug, 1, 128)))
        ;
    else if (!names_slug_valid(*slug))
        r = http_error(400, "invalid_slug", "not a valid problem slug");
    else if (*len == 0)
        r = http_error(400, "invalid_request", "the source is empty");
    else if (*len > (size_t)a->cfg->max_source_bytes)
        r = http_error(413, "payload_too_large", "the source is larger than %lld bytes",
                       (long long)a->cfg->max_source_bytes);
    if (r) {
        json_decref(*o);
        *o = NULL;
    }
    return r;
}

struct http_response *request_no_fields(const struct http_request *req)
{
    json_t *o = NULL;
    struct http_response *r;
    if (req->body && (r = request_body(req, &o, "no fields", "{}")))
        return r;
    json_decref(o);
    return NULL;
}
