/*
 * lti_verify — RS256 id_tokens checked against cached platform JWKS
 * (lti_verify.h).
 *
 * The header is decoded first (libsodium's base64url, jansson) so that
 * the alg is refused before cjose sees the token; cjose then imports the
 * JWS, imports the JWKS entry as a key and verifies (over OpenSSL). The
 * cache holds each URL's parsed "keys" array; a lookup copies the one key
 * it needs out under the mutex, and fetches run with the mutex released.
 */
#include "server/lti_verify.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjose/cjose.h>
#include <curl/curl.h>
#include <sodium.h>

#include "server/lti_http.h"
#include "util/clock.h"

#define MAX_URLS 64 /* registered platforms whose keys are cached at once */

struct entry {
    char *url;
    json_t *keys;                 /* the JWKS's "keys" array; NULL until fetched */
    int64_t fetched_at, tried_at; /* ms (wall) */
};

struct lti_jwks_cache {
    pthread_mutex_t lock;
    struct entry e[MAX_URLS];
    int n;
};

struct lti_jwks_cache *lti_jwks_cache_new(void)
{
    struct lti_jwks_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || sodium_init() < 0 ||
        pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

void lti_jwks_cache_free(struct lti_jwks_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++) {
        free(c->e[i].url);
        json_decref(c->e[i].keys);
    }
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* base64url (no padding) of one JWS segment of n bytes, decoded into a
 * new NUL-terminated buffer; NULL when it is not base64url. */
static char *segment(const char *s, size_t n, size_t *len)
{
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    if (sodium_base642bin((unsigned char *)out, n, s, n, NULL, len, NULL,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0) {
        free(out);
        return NULL;
    }
    out[*len] = '\0';
    return out;
}

/* Segment i (0 header, 1 payload) of compact parsed as a JSON object. */
static json_t *segment_json(const char *compact, int i)
{
    const char *start = compact, *dot = strchr(compact, '.');
    if (!dot)
        return NULL;
    if (i == 1) {
        start = dot + 1;
        if (!(dot = strchr(start, '.')))
            return NULL;
    }
    size_t len = 0;
    char *raw = segment(start, (size_t)(dot - start), &len);
    json_t *o = raw ? json_loadb(raw, len, JSON_REJECT_DUPLICATES, NULL) : NULL;
    free(raw);
    if (o && !json_is_object(o)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *lti_jwt_peek(const char *compact)
{
    return segment_json(compact, 1);
}

/* GETs url's JWKS: its "keys" array (a new reference), or NULL with err. */
static json_t *fetch_keys(const char *url, char *err, size_t errlen)
{
    const struct lti_request q = {.method = "GET",
                                  .url = url,
                                  .max_bytes = LTI_JWKS_MAX_BYTES,
                                  .timeout_ms = LTI_JWKS_TIMEOUT_MS};
    struct lti_reply b;
    json_t *doc = NULL, *keys = NULL;
    if (lti_http(&q, &b) < 0) {
        snprintf(err, errlen, "the platform's JWKS (%.200s) could not be fetched: %s", url, b.err);
        goto out;
    }
    if (b.status != 200) {
        snprintf(err, errlen, "the platform's JWKS (%.200s) answered HTTP %ld", url, b.status);
        goto out;
    }
    doc = json_loadb(b.body, b.len, 0, NULL);
    keys = json_object_get(doc, "keys");
    if (!json_is_array(keys)) {
        snprintf(err, errlen, "the platform's JWKS (%.200s) is not a JSON key set", url);
        keys = NULL;
        goto out;
    }
    json_incref(keys);
out:
    json_decref(doc);
    lti_reply_free(&b);
    return keys;
}

/* The entry of url (created), under the lock; NULL when the table is full. */
static struct entry *entry_of(struct lti_jwks_cache *c, const char *url)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->e[i].url, url))
            return &c->e[i];
    if (c->n == MAX_URLS || !(c->e[c->n].url = strdup(url)))
        return NULL;
    return &c->e[c->n++];
}

/* A copy of the key kid in keys, or NULL. */
static json_t *key_of(json_t *keys, const char *kid)
{
    size_t i;
    json_t *k;
    json_array_foreach(keys, i, k)
    {
        const char *id = json_string_value(json_object_get(k, "kid"));
        if (id && !strcmp(id, kid))
            return json_deep_copy(k);
    }
    return NULL;
}

/* The key kid of url's JWKS: from the cache, else fetched (a first fetch,
 * an expired copy, or a kid the copy lacks). A new reference, or NULL with
 * err. */
static json_t *find_key(struct lti_jwks_cache *c, const char *url, const char *kid, char *err,
                        size_t errlen)
{
    json_t *key = NULL;
    int64_t now = clock_wall_ms();
    pthread_mutex_lock(&c->lock);
    struct entry *e = entry_of(c, url);
    if (!e) {
        pthread_mutex_unlock(&c->lock);
        snprintf(err, errlen, "too many platform key sets to cache");
        return NULL;
    }
    bool fresh = e->keys && now - e->fetched_at < LTI_JWKS_TTL_MS;
    if (fresh && (key = key_of(e->keys, kid))) {
        pthread_mutex_unlock(&c->lock);
        return key;
    }
    if (now - e->tried_at < LTI_JWKS_REFETCH_MS) {
        pthread_mutex_unlock(&c->lock);
        snprintf(err, errlen, "no key '%.64s' in the platform's JWKS (fetched just now)", kid);
        return NULL;
    }
    e->tried_at = now;
    pthread_mutex_unlock(&c->lock);

    json_t *keys = fetch_keys(url, err, errlen);
    if (!keys)
        return NULL;
    key = key_of(keys, kid);
    pthread_mutex_lock(&c->lock);
    if ((e = entry_of(c, url))) {
        json_decref(e->keys);
        e->keys = keys;
        e->fetched_at = clock_wall_ms();
    } else {
        json_decref(keys);
    }
    pthread_mutex_unlock(&c->lock);
    if (!key)
        snprintf(err, errlen, "no key '%.64s' in the platform's JWKS", kid);
    return key;
}

json_t *lti_jwt_verify(struct lti_jwks_cache *c, const char *jwks_url, const char *compact,
                       char *err, size_t errlen)
{
    json_t *hdr = segment_json(compact, 0), *key = NULL, *claims = NULL;
    cjose_jws_t *jws = NULL;
    cjose_jwk_t *jwk = NULL;
    cjose_err cerr;
    const char *alg = json_string_value(json_object_get(hdr, "alg"));
    const char *kid = json_string_value(json_object_get(hdr, "kid"));
    if (!hdr) {
        snprintf(err, errlen, "the id_token is not a compact JWS");
        goto out;
    }
    /* before any key: "none" and HS256 never reach a verifier */
    if (!alg || strcmp(alg, "RS256")) {
        snprintf(err, errlen, "the id_token's alg is '%.20s': only RS256 is accepted",
                 alg ? alg : "(none given)");
        goto out;
    }
    if (!kid || !kid[0]) {
        snprintf(err, errlen, "the id_token's header names no kid");
        goto out;
    }
    if (!(key = find_key(c, jwks_url, kid, err, errlen)))
        goto out;
    const char *kty = json_string_value(json_object_get(key, "kty"));
    const char *kalg = json_string_value(json_object_get(key, "alg"));
    const char *use = json_string_value(json_object_get(key, "use"));
    if (!kty || strcmp(kty, "RSA") || (kalg && strcmp(kalg, "RS256")) ||
        (use && strcmp(use, "sig"))) {
        snprintf(err, errlen, "the platform's key '%.64s' is not an RS256 signing key", kid);
        goto out;
    }
    if (!(jwk = cjose_jwk_import_json((cjose_header_t *)key, &cerr))) {
        snprintf(err, errlen, "the platform's key '%.64s' cannot be read", kid);
        goto out;
    }
    if (!(jws = cjose_jws_import(compact, strlen(compact), &cerr))) {
        snprintf(err, errlen, "the id_token is not a compact JWS");
        goto out;
    }
    if (!cjose_jws_verify(jws, jwk, &cerr)) {
        snprintf(err, errlen, "the id_token's signature does not verify");
        goto out;
    }
    uint8_t *plain = NULL;
    size_t n = 0;
    if (!cjose_jws_get_plaintext(jws, &plain, &n, &cerr) ||
        !(claims = json_loadb((const char *)plain, n, JSON_REJECT_DUPLICATES, NULL)) ||
        !json_is_object(claims)) {
        json_decref(claims);
        claims = NULL;
        snprintf(err, errlen, "the id_token's payload is not a JSON object");
    }
out:
    if (jws)
        cjose_jws_release(jws);
    if (jwk)
        cjose_jwk_release(jwk);
    json_decref(key);
    json_decref(hdr);
    return claims;
}
