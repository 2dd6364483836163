/*
 * routes — the HTTP API of docs/api.md; other GET paths go to static.c.
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
#include "server/catalog.h"
#include "server/queue.h"
#include "server/ratelimit.h"
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
    struct ratelimit *auth_rl;   /* per client IP */
    struct ratelimit *signin_rl; /* failed sign-ins, per account or device */
    int web_fd;                  /* the web directory (O_PATH), -1 if none */
    atomic_int sandbox_ok;       /* result of the last sandbox self-test */
};

/* http_app.begin: routes the request, sets the body limit, or answers
 * (404, 405, 413, and 401/403 on a route with a body) without reading the
 * body. */
struct http_response *routes_begin(void *app, struct http_request *req, size_t *max_body);
/* http_app.serve: runs the handler. */
struct http_response *routes_serve(void *app, struct http_request *req);

#endif
