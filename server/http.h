/*
 * http — libmicrohttpd underneath, requests and responses above.
 *
 * The application supplies two callbacks: begin (headers received: pick the
 * route, set the body limit, or answer at once) and serve (whole body
 * received: answer). Every response gets the security headers and one line
 * in the access log.
 */
#ifndef ATTNJUDGE_SERVER_HTTP_H
#define ATTNJUDGE_SERVER_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "server/config.h"
#include "server/metrics.h"

enum http_method { HTTP_GET, HTTP_HEAD, HTTP_POST, HTTP_PUT, HTTP_PATCH, HTTP_DELETE, HTTP_OTHER };

#define HTTP_MAX_HEADERS 6

struct http_request {
    enum http_method method;
    const char *method_text;
    const char *path; /* percent-decoded, without the query */
    const char *body; /* NUL-terminated; NULL when empty */
    size_t body_len;  /* bytes */
    char remote[64];  /* client IP address: the peer, or X-Forwarded-For
                         from a trusted_proxy peer (client_address) */
    void *conn;       /* the MHD connection (http.c only) */
    /* Application scratch, set in begin and read in serve. */
    const void *route;
    char param[256]; /* the route's {slug} / {id} segment */
    char user[64];   /* for the access log; "" = anonymous */
};

struct http_response {
    int status;
    const char *content_type; /* static string */
    char *body;               /* malloc'd, owned; NULL with fd >= 0 */
    size_t len;
    int fd;         /* a regular file to send, owned, or -1 */
    bool cacheable; /* static file: revalidate instead of no-store */
    int n_headers;
    struct {
        char name[32];
        char value[512];
    } headers[HTTP_MAX_HEADERS];
    char *location; /* malloc'd, owned: a Location header of any length, or NULL */
    char *csp;      /* malloc'd, owned: this response's policy (http_csp), NULL = the default */
};

struct http_app {
    void *ctx;
    /* Headers are in. Returns NULL to read a body of up to *max_body bytes
     * (preset to 0) and then call serve, or a response to send at once. */
    struct http_response *(*begin)(void *ctx, struct http_request *req, size_t *max_body);
    /* The body is in. Returns the response, NULL only when out of memory. */
    struct http_response *(*serve)(void *ctx, struct http_request *req);
};

struct http_server;

/* Listens on cfg->bind:cfg->port with a pool of cfg->http_threads epoll
 * threads. app and metrics are borrowed. NULL with a message in err. */
struct http_server *http_start(const struct config *cfg, const struct http_app *app,
                               struct metrics *metrics, char *err, size_t errlen);
/* The bound port (useful with port 0). */
int http_port(const struct http_server *h);
/* Closes the listening socket and every connection, waiting for handlers. */
void http_stop(struct http_server *h);

/* Response constructors; NULL when out of memory. body is taken. */
struct http_response *http_response_new(int status, const char *content_type, char *body,
                                        size_t len);
/* body: a new reference, always consumed. */
struct http_response *http_json(int status, json_t *body);
/* {"error": {"code": code, "message": printf(fmt, ...)}} */
struct http_response *http_error(int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Adds a header (at most HTTP_MAX_HEADERS). Returns 0 or -1. */
int http_add_header(struct http_response *r, const char *name, const char *value);
void http_response_free(struct http_response *r);
/* The Content-Security-Policy of a page that frame_ancestors (space-separated
 * origins, NULL or "": none) may frame and that may run the inline scripts
 * of script_hashes (CSP source expressions such as 'sha256-...', NULL or
 * "": none): malloc'd, for r->csp, which also drops X-Frame-Options when it
 * allows framing. NULL when out of memory. */
char *http_csp(const char *frame_ancestors, const char *script_hashes);

/* Request accessors; borrowed strings valid during the request, NULL if
 * absent. */
const char *http_header(const struct http_request *req, const char *name);
const char *http_query(const struct http_request *req, const char *name);
const char *http_cookie(const struct http_request *req, const char *name);

#endif
