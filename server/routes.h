/*
 * routes — the HTTP API of docs/api.md: the route table and the gates in
 * front of every handler; other GET paths go to static.c.
 *
 * The two routes_* functions are the http_app callbacks; their ctx is the
 * struct app (server/app.h) that server.c builds.
 */
#ifndef ATTNJUDGE_SERVER_ROUTES_H
#define ATTNJUDGE_SERVER_ROUTES_H

#include <stddef.h>

#include "server/http.h"

/* http_app.begin: routes the request, sets the body limit, or answers
 * (404, 405, 413, and 401/403 on a route with a body) without reading the
 * body. */
struct http_response *routes_begin(void *app, struct http_request *req, size_t *max_body);
/* http_app.serve: admits the caller (who they are, resolved once; the
 * route's need, a private course, a one-time password, a cookie's origin)
 * and runs the handler. */
struct http_response *routes_serve(void *app, struct http_request *req);

#endif
