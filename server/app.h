/*
 * app — what every HTTP handler is given: the server's parts (struct app,
 * built by server.c), the caller as the route's gate resolved it (struct
 * caller), and the one handler signature (handler_fn) that routes.c's
 * table points at.
 *
 * Each resource module (ops, accounts, catalog_api, submissions, runs_api,
 * assignments, classlist, drafts, hints, rejudge, integrity, grades,
 * preview, static) exports handlers of this shape; routes.c decides who
 * may call them, so a handler only answers.
 */
#ifndef ATTNJUDGE_SERVER_APP_H
#define ATTNJUDGE_SERVER_APP_H

#include <stdatomic.h>
#include <stdbool.h>

#include "server/auth.h"
#include "server/config.h"
#include "server/http.h"
#include "server/store.h"

struct catalog;
struct judge_ctx;
struct lti_outbox;
struct lti;
struct machine_peak;
struct metrics;
struct queue;
struct ratelimit;
struct runs;

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
    struct lti_outbox *outbox; /* scores to LMSs (lti_outbox.h); NULL when not started */
    struct lti *lti;           /* LTI 1.3 (server/lti.h) */
};

/* Who is calling, resolved once per request by routes.c's gate. All zero
 * for an anonymous caller (u.id 0), and for a route open to anyone that
 * does not look its caller up. */
struct caller {
    bool signed_in, instructor;
    bool via_cookie; /* the session came from the cookie, not a Bearer token */
    struct store_user u;
    char token_hash[AUTH_TOKEN_HEX]; /* the session in use */
};

/* A route's handler: req->param holds the path's `*` segment(s); me is
 * the caller, already admitted by the route's gate. Returns the response
 * (the caller frees it), NULL only when out of memory. */
typedef struct http_response *handler_fn(struct app *a, struct http_request *req,
                                         const struct caller *me);

#endif
