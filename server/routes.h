/*
 * routes — the HTTP API of SPEC §5 (docs/api.md) and the static web UI.
 *
 * struct app is everything a handler may use; server.c builds it. The two
 * routes_* functions are the http_app callbacks.
 */
#ifndef ATTNJUDGE_SERVER_ROUTES_H
#define ATTNJUDGE_SERVER_ROUTES_H

#include <stdatomic.h>
#include <stddef.h>

#include "judge/judge.h"
#include "server/auth.h"
#include "server/config.h"
#include "server/http.h"
#include "server/metrics.h"
#include "server/problems.h"
#include "server/queue.h"
#include "server/ratelimit.h"
#include "server/store.h"

struct app {
    const struct config *cfg;
    struct store_pool *pool;
    struct auth *auth;
    struct problems *problems;
    struct queue *queue;
    struct metrics *metrics;
    struct judge_ctx *judge;
    struct ratelimit *submit_rl; /* per user */
    struct ratelimit *auth_rl;   /* per client IP */
    int web_fd;                  /* the web directory (O_PATH), -1 if none */
    atomic_int sandbox_ok;       /* result of the last sandbox self-test */
};

/* http_app.begin: routes the request, sets the body limit, or answers
 * (404, 405, 413) without reading the body. */
struct http_response *routes_begin(void *app, struct http_request *req, size_t *max_body);
/* http_app.serve: runs the handler. */
struct http_response *routes_serve(void *app, struct http_request *req);

/* The check every JSON route makes of its body before reading a field:
 * Content-Type application/json (charset UTF-8 at most), a body (NULL when
 * empty; len bytes, need not be NUL-terminated) that parses as one JSON
 * object without duplicate keys, and no key outside fields (NULL-ended).
 * Returns NULL with the object in *out (caller decrefs), or the error
 * response (caller frees) with *out NULL. Exported for tests/fuzz. */
struct http_response *routes_json_body(const char *content_type, const char *body, size_t len,
                                       const char *const *fields, json_t **out);

#endif
