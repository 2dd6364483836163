/*
 * lti_ctx — the LTI context of the server (lti_ctx.h): opened at start,
 * and the framing policy of the pages LTI platforms may frame, from the
 * registered platforms' frame origins (read again at most every
 * ORIGINS_REFRESH_MS, so that `attnjudge lti add-platform` on a running
 * server takes effect without a restart).
 */
#include "server/lti_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "server/lti_keys.h"
#include "server/lti_store.h"
#include "server/lti_verify.h"
#include "util/clock.h"

#define ORIGINS_REFRESH_MS 10000.0

struct lti *lti_new(const char *data_dir, const unsigned char *secret, size_t n, char *err,
                    size_t errlen)
{
    static const char context[] = "attnjudge lti picker v1";
    struct lti *l = calloc(1, sizeof *l);
    if (!l || sodium_init() < 0) {
        snprintf(err, errlen, "out of memory");
        free(l);
        return NULL;
    }
    if (!(l->keys = lti_keys_open(data_dir, err, errlen)))
        goto fail;
    if (!(l->jwks = lti_jwks_cache_new()) || !(l->frame_origins = strdup(""))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    /* the deployment secret is not reused as is for a second purpose */
    crypto_generichash(l->picker_key, sizeof l->picker_key, (const unsigned char *)context,
                       sizeof context - 1, secret, n);
    pthread_mutex_init(&l->lock, NULL);
    l->origins_at = -1;
    return l;
fail:
    lti_keys_close(l->keys);
    lti_jwks_cache_free(l->jwks);
    free(l);
    return NULL;
}

void lti_free(struct lti *l)
{
    if (!l)
        return;
    lti_keys_close(l->keys);
    lti_jwks_cache_free(l->jwks);
    pthread_mutex_destroy(&l->lock);
    free(l->frame_origins);
    sodium_memzero(l->picker_key, sizeof l->picker_key);
    free(l);
}

/* ---- framing ---- */

struct origins_acc {
    char *buf;
    size_t len, cap;
};

/* Appends each origin of p->frame_origins not yet in the list. */
static int add_origins(void *arg, const struct lti_platform *p, const char *deployments)
{
    struct origins_acc *o = arg;
    char copy[LTI_URL_LEN], *save = NULL;
    (void)deployments;
    snprintf(copy, sizeof copy, "%s", p->frame_origins);
    for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        size_t n = strlen(t);
        /* a CSP source expression: nothing that ends the directive */
        if (strpbrk(t, ";,'\"") || o->len + n + 2 > o->cap)
            continue;
        char needle[LTI_URL_LEN + 2];
        snprintf(needle, sizeof needle, " %s ", t);
        char hay[8192 + 2];
        snprintf(hay, sizeof hay, " %s ", o->buf);
        if (strstr(hay, needle))
            continue;
        o->len += (size_t)snprintf(o->buf + o->len, o->cap - o->len, "%s%s", o->len ? " " : "", t);
    }
    return 0;
}

/* The frame origins of every platform, reread at most every
 * ORIGINS_REFRESH_MS; copied into out. */
static void frame_origins(struct app *a, char *out, size_t len)
{
    struct lti *l = a->lti;
    double now = clock_mono_ms();
    pthread_mutex_lock(&l->lock);
    bool stale = l->origins_at < 0 || now - (double)l->origins_at > ORIGINS_REFRESH_MS;
    if (stale)
        l->origins_at = (int64_t)now;
    pthread_mutex_unlock(&l->lock);
    if (stale) {
        char buf[8192] = "";
        struct origins_acc o = {buf, 0, sizeof buf};
        struct store *s = store_pool_get(a->pool);
        int rc = lti_store_platforms(s, add_origins, &o);
        if (rc < 0)
            fprintf(stderr, "attnjudge: lti: platforms: %s\n", store_error(s));
        store_pool_put(a->pool, s);
        char *copy = rc == 0 ? strdup(buf) : NULL;
        pthread_mutex_lock(&l->lock);
        if (copy) {
            free(l->frame_origins);
            l->frame_origins = copy;
        }
        pthread_mutex_unlock(&l->lock);
    }
    pthread_mutex_lock(&l->lock);
    snprintf(out, len, "%s", l->frame_origins);
    pthread_mutex_unlock(&l->lock);
}

char *lti_page_csp(struct app *a, const char *script_hashes)
{
    char origins[8192];
    if (!a->lti)
        return NULL;
    frame_origins(a, origins, sizeof origins);
    if (!origins[0] && !(script_hashes && script_hashes[0]))
        return NULL;
    return http_csp(origins, script_hashes);
}
