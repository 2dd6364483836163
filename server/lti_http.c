/*
 * lti_http — one HTTP request to an LMS (lti_http.h).
 */
#include "server/lti_http.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <sodium.h>

/* libcurl's write callback's state: the reply and the limit on its body */
struct sink {
    struct lti_reply *r;
    size_t max;
    bool too_large;
};

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
    struct sink *s = arg;
    struct lti_reply *r = s->r;
    size_t add = size * n;
    if (r->len + add > s->max) {
        s->too_large = true;
        return 0; /* libcurl fails the transfer */
    }
    char *grown = realloc(r->body, r->len + add + 1);
    if (!grown)
        return 0;
    memcpy(grown + r->len, p, add);
    r->body = grown;
    r->len += add;
    r->body[r->len] = '\0';
    return add;
}

/* The URL of a Link header's rel="next" entry, if line has one. */
static void link_next(const char *v, size_t n, char *out, size_t outlen)
{
    const char *end = v + n;
    while (v < end) {
        const char *lt = memchr(v, '<', (size_t)(end - v));
        const char *gt = lt ? memchr(lt, '>', (size_t)(end - lt)) : NULL;
        if (!gt)
            return;
        const char *comma = memchr(gt, ',', (size_t)(end - gt));
        const char *stop = comma ? comma : end;
        const char *rel = NULL;
        for (const char *q = gt; q + 10 <= stop; q++)
            if (!strncasecmp(q, "rel=\"next\"", 10) || !strncasecmp(q, "rel=next", 8)) {
                rel = q;
                break;
            }
        if (rel && (size_t)(gt - lt - 1) < outlen) {
            memcpy(out, lt + 1, (size_t)(gt - lt - 1));
            out[gt - lt - 1] = '\0';
            return;
        }
        v = stop + 1;
    }
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
    struct lti_reply *r = arg;
    size_t len = size * n;
    if (len > 12 && !strncasecmp(p, "Retry-After:", 12)) {
        char buf[32];
        size_t k = len - 12 < sizeof buf - 1 ? len - 12 : sizeof buf - 1;
        memcpy(buf, p + 12, k);
        buf[k] = '\0';
        long s = strtol(buf, NULL, 10); /* an HTTP date reads as 0: the back-off decides */
        r->retry_after_s = s > 0 && s < 86400 ? s : 0;
    } else if (len > 5 && !strncasecmp(p, "Link:", 5)) {
        link_next(p + 5, len - 5, r->next, sizeof r->next);
    }
    return len;
}

/* The header "name: value" (name with its colon and space) formatted
 * into buf (len bytes, which the caller wipes if it must) and added to
 * *hs: false when it does not fit or memory ran out. */
static bool add_header(struct curl_slist **hs, char *buf, size_t len, const char *name,
                       const char *value)
{
    int n = snprintf(buf, len, "%s%s", name, value);
    if (n < 0 || (size_t)n >= len)
        return false;
    struct curl_slist *t = curl_slist_append(*hs, buf);
    if (t)
        *hs = t;
    return t != NULL;
}

int lti_http(const struct lti_request *q, struct lti_reply *r)
{
    char h_auth[2200] = "", h_accept[256], h_ctype[256];
    struct curl_slist *hs = NULL;
    struct sink sink = {.r = r, .max = q->max_bytes};
    int rc = -1;

    memset(r, 0, sizeof *r);
    CURL *c = curl_easy_init();
    if (!c) {
        snprintf(r->err, sizeof r->err, "libcurl: cannot start a request");
        return -1;
    }
    if ((q->bearer &&
         !add_header(&hs, h_auth, sizeof h_auth, "Authorization: Bearer ", q->bearer)) ||
        (q->accept && !add_header(&hs, h_accept, sizeof h_accept, "Accept: ", q->accept)) ||
        (q->body && !add_header(&hs, h_ctype, sizeof h_ctype, "Content-Type: ", q->ctype))) {
        snprintf(r->err, sizeof r->err, "out of memory, or a header too long");
        goto out;
    }
    if (q->body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(q->body));
    } else if (strcmp(q->method, "GET")) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, q->method);
    }
    curl_easy_setopt(c, CURLOPT_URL, q->url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for timeouts */
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, q->timeout_ms);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hs);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "attnjudge-lti");
    CURLcode cc = curl_easy_perform(c);
    if (cc != CURLE_OK) {
        if (sink.too_large)
            snprintf(r->err, sizeof r->err, "the answer is larger than %zu bytes", q->max_bytes);
        else
            snprintf(r->err, sizeof r->err, "%s", curl_easy_strerror(cc));
        goto out;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    if (!r->body && !(r->body = calloc(1, 1))) {
        snprintf(r->err, sizeof r->err, "out of memory");
        goto out;
    }
    rc = 0;
out:
    sodium_memzero(h_auth, sizeof h_auth);
    curl_slist_free_all(hs);
    curl_easy_cleanup(c);
    return rc;
}

void lti_reply_free(struct lti_reply *r)
{
    free(r->body);
    r->body = NULL;
    r->len = 0;
}
