/*
 * http — libmicrohttpd's calls turned into one begin and one serve per
 * request (http.h).
 *
 * libmicrohttpd parses HTTP (no hand-written parser) on a pool of threads,
 * each running its own epoll loop over its share of the connections. MHD
 * calls the access handler several times per request:
 *   1st call: headers only. We allocate the request state, let the
 *             application route it and identify the caller (begin), and
 *             refuse at once what cannot succeed (unknown route, no or the
 *             wrong credentials, declared Content-Length over the route's
 *             limit) so that such a body is never read: MHD answers and
 *             closes the connection.
 *   next calls: body chunks. They are appended up to the route's limit;
 *             beyond it the rest is counted and dropped (chunked bodies have
 *             no Content-Length) and the answer will be 413; a body larger
 *             than 64 x the limit closes the connection.
 *   last call: *upload_data_size == 0. serve() builds the response.
 * The completion callback writes the access-log line and frees the state.
 *
 * Handlers run on MHD's threads and may block (database, password hashing,
 * a problem upload's validation); the pool is sized so that a few slow
 * requests do not stall the others. Out of memory never kills the server: a
 * prebuilt 500 response is sent instead.
 *
 * Every response carries the security headers (CSP, nosniff, no framing);
 * API responses are not cacheable.
 *
 * Before any of that MHD shows us the request target as the client sent
 * it (on_target), before it decodes the path and splits the query into
 * parameters: a path with an encoded NUL or slash (which would be routed
 * as decoded) is answered 400, and a target over MAX_TARGET bytes or
 * MAX_PARAMS parameters 414, at the first call. MHD keeps one record per
 * query parameter in the connection's memory pool, and a query that
 * overflowed the pool left the connection unanswered until its timeout;
 * such a query is cut off before MHD parses it.
 *
 * Connections: at most cfg->max_connections at once (server.c sizes it
 * below the descriptor limit, keeping a reserve for judging) and
 * cfg->max_connections_per_ip from one client address, so one address's
 * idle connections cannot lock the others out; idle ones time out after
 * 30 s.
 */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "judge/judge.h"
#include "server/client.h"

#define CSP_BASE                                                                                   \
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "                 \
    "object-src 'none'; "
#define CSP CSP_BASE "frame-ancestors 'none'"
#define DISCARD_FACTOR 64
#define MAX_TARGET 8192 /* bytes of a request target (path and query) */
#define MAX_PARAMS 64   /* query parameters; the API uses a handful at most */

struct http_server {
    struct MHD_Daemon *d;
    struct http_app app;
    struct metrics *metrics;
    struct MHD_Response *oom; /* prebuilt 500 */
    int log_fd;               /* -1 = no access log */
    bool own_log_fd;
    int port;
    struct client_proxies proxies; /* cfg->trusted_proxy */
    /* MHD's messages (mhd_log), with repeats folded */
    pthread_mutex_t mhd_log_lock;
    char mhd_last[256];
    time_t mhd_last_at; /* CLOCK_MONOTONIC, s */
    unsigned mhd_repeats;
};

/* Per-request state, MHD's con_cls. */
struct state {
    struct http_request req;
    char *buf;
    size_t cap;
    size_t max_body;
    uint64_t seen; /* body bytes received, kept or not */
    bool begun;    /* the first call to on_request is over */
    int refused;   /* 400 or 414 for what on_target found, else 0 */
    bool too_large, oom, answered;
    int status;
    uint64_t sent_len;
    struct timespec start;
};

/* ---- responses ---- */

struct http_response *http_response_new(int status, const char *content_type, char *body,
                                        size_t len)
{
    struct http_response *r = calloc(1, sizeof *r);
    if (!r) {
        free(body);
        return NULL;
    }
    r->status = status;
    r->content_type = content_type;
    r->body = body;
    r->len = len;
    r->fd = -1;
    return r;
}

struct http_response *http_json(int status, json_t *body)
{
    char *text = body ? json_dumps(body, JSON_COMPACT | JUDGE_JSON_REALS) : NULL;
    json_decref(body);
    if (!text)
        return NULL;
    return http_response_new(status, "application/json; charset=utf-8", text, strlen(text));
}

struct http_response *http_error(int status, const char *code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* json_pack validates UTF-8: a message quoting client bytes that are not
     * UTF-8 falls back to a generic text instead of failing. */
    json_t *o = json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", msg);
    if (!o)
        o = json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", "invalid request");
    return http_json(status, o);
}

int http_add_header(struct http_response *r, const char *name, const char *value)
{
    if (!r || r->n_headers >= HTTP_MAX_HEADERS)
        return -1;
    snprintf(r->headers[r->n_headers].name, sizeof r->headers[0].name, "%s", name);
    snprintf(r->headers[r->n_headers].value, sizeof r->headers[0].value, "%s", value);
    r->n_headers++;
    return 0;
}

char *http_csp(const char *frame_ancestors, const char *script_hashes)
{
    bool frames = frame_ancestors && frame_ancestors[0],
         scripts = script_hashes && script_hashes[0];
    char *out = NULL;
    if (asprintf(&out, "%s%s%s%sframe-ancestors %s", CSP_BASE, scripts ? "script-src 'self' " : "",
                 scripts ? script_hashes : "", scripts ? "; " : "",
                 frames ? frame_ancestors : "'none'") < 0)
        return NULL;
    return out;
}

void http_response_free(struct http_response *r)
{
    if (!r)
        return;
    free(r->location);
    free(r->csp);
    free(r->body);
    if (r->fd >= 0)
        close(r->fd);
    free(r);
}

/* ---- request accessors ---- */

const char *http_header(const struct http_request *req, const char *name)
{
    return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *http_query(const struct http_request *req, const char *name)
{
    return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

const char *http_cookie(const struct http_request *req, const char *name)
{
    return MHD_lookup_connection_value(req->conn, MHD_COOKIE_KIND, name);
}

/* ---- access log ---- */

static void log_request(struct http_server *h, struct state *st)
{
    if (h->log_fd < 0)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double ms = (double)(now.tv_sec - st->start.tv_sec) * 1e3 +
                (double)(now.tv_nsec - st->start.tv_nsec) / 1e6;
    char when[32], path[256];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* The path is client-controlled: no control characters, quotes or
     * non-ASCII bytes may reach the log (log injection). */
    size_t k = 0;
    for (const char *p = st->req.path ? st->req.path : "-"; *p && k < sizeof path - 4; p++)
        path[k++] = (*p < 0x21 || *p > 0x7e || *p == '"') ? '?' : *p;
    if (k == sizeof path - 4)
        path[k++] = '.', path[k++] = '.', path[k++] = '.';
    path[k] = '\0';
    char method[16];
    k = 0;
    for (const char *p = st->req.method_text ? st->req.method_text : "-";
         *p && k < sizeof method - 1; p++)
        method[k++] = (*p < 0x21 || *p > 0x7e) ? '?' : *p;
    method[k] = '\0';
    char line[512];
    int n = snprintf(line, sizeof line, "%s %s \"%s %s\" %d %llu %.1fms %s\n", when,
                     st->req.remote[0] ? st->req.remote : "-", method, path, st->status,
                     (unsigned long long)st->sent_len, ms, st->req.user[0] ? st->req.user : "-");
    if (n > 0) {
        /* One write per line: lines from different threads do not interleave. */
        ssize_t w = write(h->log_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct http_server *h = cls;
    struct state *st = *con_cls;
    (void)c;
    (void)toe;
    if (!st)
        return;
    if (st->answered)
        log_request(h, st);
    free(st->buf);
    free(st);
    *con_cls = NULL;
}

/* ---- sending ---- */

static enum MHD_Result send_response(struct http_server *h, struct MHD_Connection *c,
                                     struct state *st, struct http_response *r)
{
    struct MHD_Response *mr = NULL;
    enum MHD_Result ret;
    if (!r)
        goto oom;
    if (r->fd >= 0) {
        struct stat sb;
        if (fstat(r->fd, &sb) < 0)
            goto oom;
        mr = MHD_create_response_from_fd((uint64_t)sb.st_size, r->fd);
        if (mr) {
            r->fd = -1; /* MHD closes it */
            st->sent_len = (uint64_t)sb.st_size;
        }
    } else {
        mr = MHD_create_response_from_buffer(r->len, r->body ? r->body : (char *)"",
                                             r->body ? MHD_RESPMEM_MUST_FREE
                                                     : MHD_RESPMEM_PERSISTENT);
        if (mr) {
            r->body = NULL; /* MHD frees it */
            st->sent_len = r->len;
        }
    }
    if (!mr)
        goto oom;
    /* X-Frame-Options cannot name origins: a page framed by some goes by
     * its CSP alone */
    bool framed = r->csp && !strstr(r->csp, "frame-ancestors 'none'");
    bool ok =
        MHD_add_response_header(mr, "Content-Security-Policy", r->csp ? r->csp : CSP) == MHD_YES &&
        MHD_add_response_header(mr, "X-Content-Type-Options", "nosniff") == MHD_YES &&
        (framed || MHD_add_response_header(mr, "X-Frame-Options", "DENY") == MHD_YES) &&
        MHD_add_response_header(mr, "Referrer-Policy", "no-referrer") == MHD_YES &&
        MHD_add_response_header(mr, "Cache-Control", r->cacheable ? "no-cache" : "no-store") ==
            MHD_YES;
    if (ok && r->content_type)
        ok = MHD_add_response_header(mr, "Content-Type", r->content_type) == MHD_YES;
    if (ok && r->location)
        ok = MHD_add_response_header(mr, "Location", r->location) == MHD_YES;
    for (int i = 0; ok && i < r->n_headers; i++)
        ok = MHD_add_response_header(mr, r->headers[i].name, r->headers[i].value) == MHD_YES;
    if (!ok)
        goto oom;
    st->status = r->status;
    st->answered = true;
    metrics_http(h->metrics, r->status);
    ret = MHD_queue_response(c, (unsigned)r->status, mr);
    MHD_destroy_response(mr);
    http_response_free(r);
    return ret;
oom:
    if (mr)
        MHD_destroy_response(mr);
    http_response_free(r);
    st->status = 500;
    st->answered = true;
    st->sent_len = 0;
    metrics_http(h->metrics, 500);
    return MHD_queue_response(c, 500, h->oom);
}

static enum http_method method_of(const char *m)
{
    if (!strcmp(m, "GET"))
        return HTTP_GET;
    if (!strcmp(m, "HEAD"))
        return HTTP_HEAD;
    if (!strcmp(m, "POST"))
        return HTTP_POST;
    if (!strcmp(m, "PUT"))
        return HTTP_PUT;
    if (!strcmp(m, "PATCH"))
        return HTTP_PATCH;
    if (!strcmp(m, "DELETE"))
        return HTTP_DELETE;
    return HTTP_OTHER;
}

static void remote_of(struct MHD_Connection *c, char *buf, size_t len)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    buf[0] = '\0';
    if (!ci || !ci->client_addr)
        return;
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, buf,
                  (socklen_t)len);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, buf,
                  (socklen_t)len);
}

/* ---- client address ---- */

#define MAX_FORWARDED 8 /* X-Forwarded-For lines; more: the header is ignored */

struct forwarded {
    const char *v[MAX_FORWARDED];
    size_t n;
    bool overflow;
};

static enum MHD_Result collect_forwarded(void *cls, enum MHD_ValueKind kind, const char *key,
                                         const char *value)
{
    struct forwarded *f = cls;
    (void)kind;
    if (!key || strcasecmp(key, "X-Forwarded-For"))
        return MHD_YES;
    if (f->n == MAX_FORWARDED) {
        f->overflow = true;
        return MHD_NO;
    }
    f->v[f->n++] = value ? value : "";
    return MHD_YES;
}

/* The client's address into buf (CLIENT_ADDR_LEN): the TCP peer, or behind
 * a trusted proxy the address it forwarded (client.h has the rules). */
static void client_of(struct http_server *h, struct MHD_Connection *c, char *buf)
{
    char peer[CLIENT_ADDR_LEN];
    struct forwarded f = {.n = 0};
    remote_of(c, peer, sizeof peer);
    if (h->proxies.n > 0)
        MHD_get_connection_values(c, MHD_HEADER_KIND, collect_forwarded, &f);
    client_address(&h->proxies, peer, f.v, f.overflow ? 0 : f.n, buf);
}

/* Whether the path part of a raw target has %00 or an encoded '/': MHD
 * decodes the path before routing, so the first would cut it short and
 * the second add a separator. */
static bool encoded_nul_or_slash(const char *path, size_t len)
{
    for (size_t i = 0; i + 2 < len; i++)
        if (path[i] == '%' && ((path[i + 1] == '0' && path[i + 2] == '0') ||
                               (path[i + 1] == '2' && (path[i + 2] | 0x20) == 'f')))
            return true;
    return false;
}

/* MHD_OPTION_URI_LOG_CALLBACK: uri is the target as sent, still in MHD's
 * read buffer; its query is parsed right after this returns. Returns the
 * request's state (MHD's con_cls), or NULL when out of memory. */
static void *on_target(void *cls, const char *uri, struct MHD_Connection *c)
{
    struct state *st = calloc(1, sizeof *st);
    (void)cls;
    (void)c;
    if (!st)
        return NULL;
    clock_gettime(CLOCK_MONOTONIC, &st->start);
    size_t len = strlen(uri), params = 0;
    char *query = strchr(uri, '?');
    if (encoded_nul_or_slash(uri, query ? (size_t)(query - uri) : len))
        st->refused = 400;
    if (query && query[1])
        for (const char *p = query; *p; p++)
            params += *p == '?' || *p == '&';
    if (len > MAX_TARGET || params > MAX_PARAMS) {
        st->refused = 414;
        /* an empty query for MHD to parse: no parameter can fill the pool.
         * The buffer is MHD's own, writable, and written by it next. */
        if (query)
            query[1] = '\0';
    }
    return st;
}

static int append(struct state *st, const char *data, size_t n)
{
    if (st->buf == NULL || st->req.body_len + n + 1 > st->cap) {
        size_t cap = st->cap ? st->cap : 4096;
        while (cap < st->req.body_len + n + 1)
            cap *= 2;
        if (cap > st->max_body + 1)
            cap = st->max_body + 1;
        char *b = realloc(st->buf, cap);
        if (!b)
            return -1;
        st->buf = b;
        st->cap = cap;
    }
    memcpy(st->buf + st->req.body_len, data, n);
    st->req.body_len += n;
    st->buf[st->req.body_len] = '\0';
    return 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct http_server *h = cls;
    struct state *st = *con_cls;
    (void)version;

    if (!st)
        return MHD_NO; /* on_target was out of memory: drop the connection */
    if (!st->begun) {
        st->begun = true;
        st->req.method = method_of(method);
        st->req.method_text = method;
        st->req.path = url;
        st->req.conn = c;
        client_of(h, c, st->req.remote);
        size_t max = 0;
        struct http_response *early =
            st->refused == 414
                ? http_error(414, "uri_too_long",
                             "the request target has more than %d bytes or %d query parameters",
                             MAX_TARGET, MAX_PARAMS)
            : st->refused == 400
                ? http_error(400, "invalid_path",
                             "the path may not hold an encoded NUL (%%00) or slash (%%2F)")
                : h->app.begin(h->app.ctx, &st->req, &max);
        st->max_body = max;
        if (!early) {
            const char *cl =
                MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
            char *end;
            if (cl && (errno = 0, strtoull(cl, &end, 10) > max) && !errno)
                early = http_error(413, "payload_too_large",
                                   "the request body is larger than %zu bytes", max);
        }
        if (early)
            return send_response(h, c, st, early);
        return MHD_YES;
    }
    if (st->answered) {
        /* Answered early; MHD may still hand us body bytes: drop them. */
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        st->seen += n;
        if (st->too_large || st->oom)
            return st->seen > (uint64_t)st->max_body * DISCARD_FACTOR + 65536 ? MHD_NO : MHD_YES;
        if (st->req.body_len + n > st->max_body) {
            st->too_large = true;
            free(st->buf);
            st->buf = NULL;
            st->req.body_len = 0;
        } else if (append(st, upload_data, n) < 0) {
            st->oom = true;
        }
        return MHD_YES;
    }
    struct http_response *r;
    if (st->too_large)
        r = http_error(413, "payload_too_large", "the request body is larger than %zu bytes",
                       st->max_body);
    else if (st->oom)
        r = NULL;
    else {
        st->req.body = st->req.body_len ? st->buf : NULL;
        r = h->app.serve(h->app.ctx, &st->req);
    }
    return send_response(h, c, st, r);
}

/* MHD logs one line per connection it refuses (over a connection limit):
 * under a flood that would flood the log too. A message repeating the
 * previous one within 10 s is only counted; the count is printed before
 * the next message that gets through. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct http_server *h = cls;
    char buf[512];
    struct timespec now;
    vsnprintf(buf, sizeof buf, fmt, ap);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&h->mhd_log_lock);
    if (!strncmp(buf, h->mhd_last, sizeof h->mhd_last - 1) && now.tv_sec - h->mhd_last_at < 10) {
        h->mhd_repeats++;
    } else {
        if (h->mhd_repeats)
            fprintf(stderr, "attnjudge: http: (the previous message %u more times)\n",
                    h->mhd_repeats);
        fprintf(stderr, "attnjudge: http: %s\n", buf);
        snprintf(h->mhd_last, sizeof h->mhd_last, "%s", buf);
        h->mhd_last_at = now.tv_sec;
        h->mhd_repeats = 0;
    }
    pthread_mutex_unlock(&h->mhd_log_lock);
}

struct http_server *http_start(const struct config *cfg, const struct http_app *app,
                               struct metrics *metrics, char *err, size_t errlen)
{
    static const char oom_body[] =
        "{\"error\":{\"code\":\"internal\",\"message\":\"the server is out of memory\"}}";
    struct http_server *h = calloc(1, sizeof *h);
    struct sockaddr_storage ss;
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    h->app = *app;
    h->metrics = metrics;
    h->log_fd = -1;
    h->proxies = cfg->trusted_proxy;
    pthread_mutex_init(&h->mhd_log_lock, NULL);
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, cfg->bind, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((uint16_t)cfg->port);
    } else if (inet_pton(AF_INET6, cfg->bind, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)cfg->port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, errlen, "bind: '%s' is not an IPv4 or IPv6 address", cfg->bind);
        goto fail;
    }
    if (!strcmp(cfg->access_log, "-")) {
        h->log_fd = STDERR_FILENO;
    } else if (strcmp(cfg->access_log, "off")) {
        h->log_fd = open(cfg->access_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
        if (h->log_fd < 0) {
            snprintf(err, errlen, "access_log %s: %s", cfg->access_log, strerror(errno));
            goto fail;
        }
        h->own_log_fd = true;
    }
    h->oom = MHD_create_response_from_buffer(sizeof oom_body - 1, (void *)oom_body,
                                             MHD_RESPMEM_PERSISTENT);
    if (!h->oom ||
        MHD_add_response_header(h->oom, "Content-Type", "application/json; charset=utf-8") !=
            MHD_YES ||
        MHD_add_response_header(h->oom, "Content-Security-Policy", CSP) != MHD_YES ||
        MHD_add_response_header(h->oom, "X-Content-Type-Options", "nosniff") != MHD_YES) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    h->d = MHD_start_daemon(
        flags, (uint16_t)cfg->port, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
        h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)cfg->http_threads, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->max_connections, MHD_OPTION_URI_LOG_CALLBACK,
        on_target, h, MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)cfg->max_connections_per_ip,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_LISTENING_ADDRESS_REUSE,
        (unsigned)1, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_LISTEN_SOCKET,
        (MHD_socket)cfg->listen_fd, MHD_OPTION_END);
    if (!h->d) {
        snprintf(err, errlen, "cannot listen on %s port %d (in use, or not permitted)", cfg->bind,
                 cfg->port);
        goto fail;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = di ? di->port : cfg->port;
    return h;
fail:
    http_stop(h);
    return NULL;
}

int http_port(const struct http_server *h)
{
    return h->port;
}

void http_stop(struct http_server *h)
{
    if (!h)
        return;
    if (h->d)
        MHD_stop_daemon(h->d);
    if (h->oom)
        MHD_destroy_response(h->oom);
    if (h->own_log_fd)
        close(h->log_fd);
    pthread_mutex_destroy(&h->mhd_log_lock);
    free(h);
}
