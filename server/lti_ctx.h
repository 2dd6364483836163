/*
 * lti_ctx — the LTI parts of struct app (server/app.h), built at start
 * and shared by the LTI handlers (lti.c, lti_deeplink.c) and the pages
 * that LTI platforms may frame (static.c): the tool's keys, the platforms'
 * cached keys, the picker's key, and the framing policy.
 */
#ifndef ATTNJUDGE_SERVER_LTI_CTX_H
#define ATTNJUDGE_SERVER_LTI_CTX_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "server/app.h"

struct lti_keys;
struct lti_jwks_cache;

/* The LTI parts of struct app: the tool's keys, the platforms' cached
 * keys, the key that signs the picker's context, and the origins allowed
 * to frame the pages (read from the store at most every 10 s). */
struct lti {
    struct lti_keys *keys;
    struct lti_jwks_cache *jwks;
    unsigned char picker_key[32];
    pthread_mutex_t lock;
    char *frame_origins; /* under lock; space-separated, "" = none */
    int64_t origins_at;  /* ms (monotonic) of the last read */
};

/* Opens the tool's keys under data_dir (created at first start) and
 * derives the picker's key from the deployment secret (n bytes). NULL
 * with a message in err. Caller frees with lti_free. */
struct lti *lti_new(const char *data_dir, const unsigned char *secret, size_t n, char *err,
                    size_t errlen);

void lti_free(struct lti *l);

/* The Content-Security-Policy for a page of the web UI: framing allowed
 * to the registered platforms' origins (none registered: no framing).
 * Malloc'd for http_response.csp; NULL when nothing differs from the
 * default or when out of memory. */
char *lti_page_csp(struct app *a, const char *script_hashes);

#endif
