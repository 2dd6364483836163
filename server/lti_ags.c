/*
 * lti_ags — tokens and service calls to an LMS (lti_ags.h).
 *
 * Every request goes through lti_http (no redirect followed, a deadline,
 * a bounded answer). The cache holds one token per (platform, scope),
 * valid until a minute before the expiry the token endpoint gave; its
 * lock is held only to read or write an entry, never across a request.
 */
#include "server/lti_ags.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>
#include <sodium.h>

#include "server/lti_http.h"
#include "server/lti_keys.h"
#include "util/clock.h"

#define TIMEOUT_MS 10000
#define MAX_BODY (4 * 1024 * 1024) /* bytes: an NRPS page of thousands of members */
#define CACHE_N 32
#define ASSERTION_S 300 /* the assertion's lifetime */
#define EARLY_S 60      /* a token is renewed this long before it expires */

struct token {
    int64_t platform_id;
    char scope[128];
    char value[2048];
    int64_t expires_at; /* ms */
};

struct lti_ags {
    const struct lti_keys *keys;
    pthread_mutex_t lock;
    struct token cache[CACHE_N];
};

struct lti_ags *lti_ags_new(const struct lti_keys *keys)
{
    struct lti_ags *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->keys = keys;
    pthread_mutex_init(&g->lock, NULL);
    return g;
}

void lti_ags_free(struct lti_ags *g)
{
    if (!g)
        return;
    pthread_mutex_destroy(&g->lock);
    sodium_memzero(g->cache, sizeof g->cache);
    free(g);
}

/* method url, carrying token auth (or none), with Accept accept
 * (application/json when NULL) and, for a POST, body of type ctype */
static int request(const char *method, const char *url, const char *auth, const char *accept,
                   const char *ctype, const char *body, struct lti_reply *r)
{
    const struct lti_request q = {.method = method,
                                  .url = url,
                                  .bearer = auth,
                                  .accept = accept ? accept : "application/json",
                                  .ctype = ctype,
                                  .body = body,
                                  .max_bytes = MAX_BODY,
                                  .timeout_ms = TIMEOUT_MS};
    return lti_http(&q, r);
}

/* ---- tokens ---- */

static struct token *cached(struct lti_ags *g, const struct lti_client *c, const char *scope)
{
    for (int i = 0; i < CACHE_N; i++)
        if (g->cache[i].value[0] && g->cache[i].platform_id == c->platform_id &&
            !strcmp(g->cache[i].scope, scope))
            return &g->cache[i];
    return NULL;
}

static void forget(struct lti_ags *g, const struct lti_client *c, const char *scope)
{
    pthread_mutex_lock(&g->lock);
    struct token *t = cached(g, c, scope);
    if (t)
        sodium_memzero(t, sizeof *t);
    pthread_mutex_unlock(&g->lock);
}

static void remember(struct lti_ags *g, const struct lti_client *c, const char *scope,
                     const char *value, int64_t expires_at)
{
    pthread_mutex_lock(&g->lock);
    struct token *t = cached(g, c, scope);
    for (int i = 0; !t && i < CACHE_N; i++)
        if (!g->cache[i].value[0])
            t = &g->cache[i];
    if (!t) { /* full: the one expiring first goes */
        t = &g->cache[0];
        for (int i = 1; i < CACHE_N; i++)
            if (g->cache[i].expires_at < t->expires_at)
                t = &g->cache[i];
    }
    t->platform_id = c->platform_id;
    snprintf(t->scope, sizeof t->scope, "%s", scope);
    snprintf(t->value, sizeof t->value, "%s", value);
    t->expires_at = expires_at;
    pthread_mutex_unlock(&g->lock);
}

/* The RFC 7523 client assertion: iss = sub = the client id, aud = the
 * token endpoint, a short life and a fresh jti. malloc'd or NULL. */
static char *assertion(const struct lti_ags *g, const struct lti_client *c)
{
    unsigned char raw[16];
    char jti[2 * sizeof raw + 1];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(jti, sizeof jti, raw, sizeof raw);
    int64_t now = clock_wall_ms() / 1000;
    json_t *claims = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s}", "iss", c->client_id, "sub",
                               c->client_id, "aud", c->token_url, "iat", (json_int_t)now, "exp",
                               (json_int_t)(now + ASSERTION_S), "jti", jti);
    char *jws = claims ? lti_keys_sign(g->keys, claims) : NULL;
    json_decref(claims);
    return jws;
}

/* A new token of c for scope into out (outlen bytes), cached: 0 or -1
 * (r->err, r->status the endpoint's answer when it gave one). */
static int fetch_token(struct lti_ags *g, const struct lti_client *c, const char *scope, char *out,
                       size_t outlen, struct lti_reply *r)
{
    int rc = -1;
    char *jws = assertion(g, c);
    CURL *esc = curl_easy_init();
    char *e_jws = esc && jws ? curl_easy_escape(esc, jws, 0) : NULL;
    char *e_scope = esc ? curl_easy_escape(esc, scope, 0) : NULL;
    char *form = NULL;
    json_t *o = NULL;
    if (!e_jws || !e_scope) {
        snprintf(r->err, sizeof r->err, "cannot sign the client assertion");
        goto out;
    }
    if (asprintf(&form,
                 "grant_type=client_credentials&client_assertion_type=urn%%3Aietf%%3Aparams%%"
                 "3Aoauth%%3Aclient-assertion-type%%3Ajwt-bearer&client_assertion=%s&scope=%s",
                 e_jws, e_scope) < 0) {
        form = NULL;
        snprintf(r->err, sizeof r->err, "out of memory");
        goto out;
    }
    if (request("POST", c->token_url, NULL, "application/json", "application/x-www-form-urlencoded",
                form, r) < 0)
        goto out;
    o = json_loadb(r->body, r->len, 0, NULL);
    const char *tok = json_string_value(json_object_get(o, "access_token"));
    json_t *ttl = json_object_get(o, "expires_in");
    if (r->status != 200 || !tok) {
        const char *why = json_string_value(json_object_get(o, "error"));
        snprintf(r->err, sizeof r->err, "token endpoint: HTTP %ld%s%s", r->status, why ? " " : "",
                 why ? why : "");
        goto out;
    }
    if (strlen(tok) >= outlen || strlen(tok) >= sizeof g->cache[0].value) {
        snprintf(r->err, sizeof r->err, "token endpoint: the access token is too long");
        goto out;
    }
    snprintf(out, outlen, "%s", tok);
    int64_t life_s = json_is_integer(ttl) ? (int64_t)json_integer_value(ttl) : 3600;
    int64_t keep_s = life_s > 2 * EARLY_S ? life_s - EARLY_S : life_s / 2;
    remember(g, c, scope, tok, clock_wall_ms() + keep_s * 1000);
    rc = 0;
out:
    if (o) {
        json_t *t = json_object_get(o, "access_token");
        if (json_is_string(t))
            json_string_set(t, ""); /* no copy of the token outlives this */
    }
    json_decref(o);
    if (r->body)
        sodium_memzero(r->body, r->len);
    lti_reply_free(r);
    if (form) {
        sodium_memzero(form, strlen(form));
        free(form);
    }
    curl_free(e_jws);
    curl_free(e_scope);
    if (esc)
        curl_easy_cleanup(esc);
    if (jws) {
        sodium_memzero(jws, strlen(jws));
        free(jws);
    }
    return rc;
}

/* A usable token of c for scope into out: the cached one, else a new one. */
static int token(struct lti_ags *g, const struct lti_client *c, const char *scope, char *out,
                 size_t outlen, struct lti_reply *r)
{
    bool have = false;
    pthread_mutex_lock(&g->lock);
    struct token *t = cached(g, c, scope);
    if (t && t->expires_at > clock_wall_ms()) {
        snprintf(out, outlen, "%s", t->value);
        have = true;
    }
    pthread_mutex_unlock(&g->lock);
    return have ? 0 : fetch_token(g, c, scope, out, outlen, r);
}

int lti_ags_call(struct lti_ags *g, const struct lti_client *c, const char *scope,
                 const char *method, const char *url, const char *accept, const char *ctype,
                 const char *body, struct lti_reply *r)
{
    char tok[2048];
    int rc = -1;
    memset(r, 0, sizeof *r);
    for (int round = 0; round < 2; round++) {
        if (token(g, c, scope, tok, sizeof tok, r) < 0)
            break;
        r->status = 0;
        if ((rc = request(method, url, tok, accept, ctype, body, r)) < 0 || r->status != 401)
            break;
        /* revoked or expired early: once more with a new one */
        forget(g, c, scope);
        if (round == 0)
            lti_reply_free(r);
    }
    sodium_memzero(tok, sizeof tok);
    return rc;
}
