/*
 * routes — the HTTP API of docs/api.md; other GET paths go to static.c.
 *
 * struct app is everything a handler may use; server.c builds it. The two
 * routes_* functions are the http_app callbacks.
 */
#ifndef ATTNJUDGE_SERVER_ROUTES_H
#define ATTNJUDGE_SERVER_ROUTES_H

#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>

#include "judge/judge.h"
#include "judge/machine.h"
#include "server/auth.h"
#include "server/config.h"
#include "server/http.h"
#include "server/metrics.h"
#include "server/catalog.h"
#include "server/queue.h"
#include "server/ratelimit.h"
#include "server/runs.h"
#include "server/store.h"

struct app {
    const struct config *cfg;
    struct store_pool *pool;
    struct auth *auth;
    struct catalog *catalog;
    struct queue *queue;
    struct metrics *metrics;
    struct judge_ctx *judge;
    struct ratelimit *submit_rl; /* per user */
    struct runs *runs;           /* ungraded sample runs */
    struct ratelimit *run_rl;    /* ungraded runs, per user */
    struct ratelimit *draft_rl;  /* draft saves, per user */
    struct ratelimit *auth_rl;   /* per client IP */
    struct ratelimit *signin_rl; /* failed sign-ins, per account or device */
    int web_fd;                  /* the web directory (O_PATH), -1 if none */
    atomic_int sandbox_ok;       /* result of the last sandbox self-test */
    /* this machine's ceilings, measured at start-up; NULL when the server
     * does not benchmark (docs/performance.md) */
    const struct machine_peak *machine;
};

/* http_app.begin: routes the request, sets the body limit, or answers
 * (404, 405, 413, and 401/403 on a route with a body) without reading the
 * body. */
struct http_response *routes_begin(void *app, struct http_request *req, size_t *max_body);
/* http_app.serve: runs the handler. */
struct http_response *routes_serve(void *app, struct http_request *req);

/* The check every JSON route makes of its body: Content-Type
 * application/json (charset UTF-8 at most), a body (NULL when empty; len
 * bytes, need not be NUL-terminated) that parses as one JSON object without
 * duplicate keys, whose null members count as absent, unpacked by
 * json_unpack_ex in strict mode with fmt and the pointers after it (so an
 * unknown field, a missing one or a wrong type is refused; shape says what
 * the route takes, for the message). Returns NULL with the object in *root
 * (it owns the unpacked strings; caller decrefs), or the 4xx response
 * (caller frees) with *root NULL. Exported for tests/fuzz. */
struct http_response *routes_json_body(const char *content_type, const char *body, size_t len,
                                       json_t **root, const char *shape, const char *fmt, ...);
/* The same with a va_list. */
struct http_response *routes_json_vbody(const char *content_type, const char *body, size_t len,
                                        json_t **root, const char *shape, const char *fmt,
                                        va_list ap);

#endif
