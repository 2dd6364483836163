/*
 * ratelimit — token buckets in one table under one mutex (ratelimit.h).
 *
 * A fixed-size open-addressing table of buckets, protected by one mutex (a
 * take is a hash, a probe and a few arithmetic operations, so contention is
 * negligible next to the request it guards). Each bucket stores its token
 * count at its last update; refilling is computed lazily from the elapsed
 * time. When the table is full, a bucket that has refilled completely is
 * indistinguishable from a forgotten one and is reused; if none is, the
 * request is allowed (failing open on memory pressure rather than locking
 * out every new user).
 *
 * Slots are chosen by a keyed hash (SipHash, a random key per table): with
 * a public hash a client could pick keys that fill the probe window of
 * someone else's key, and so push that key out to the fail-open path.
 */
#include "server/ratelimit.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#define KEY_LEN 64
#define PROBES 32

struct bucket {
    char key[KEY_LEN]; /* "" = empty slot */
    double tokens;
    int64_t updated_ms;
};

struct ratelimit {
    pthread_mutex_t lock;
    double per_ms; /* tokens per millisecond */
    double burst;
    size_t n; /* slots, a power of two */
    struct bucket *b;
    unsigned char hash_key[crypto_shorthash_KEYBYTES];
};

struct ratelimit *ratelimit_new(double per_minute, int burst, int max_keys)
{
    struct ratelimit *r = NULL;
    if (sodium_init() < 0 || !(r = calloc(1, sizeof *r)))
        return NULL;
    r->n = 64;
    while (r->n < (size_t)max_keys * 2)
        r->n *= 2;
    if (!(r->b = calloc(r->n, sizeof *r->b))) {
        free(r);
        return NULL;
    }
    r->per_ms = per_minute / 60000.0;
    r->burst = burst;
    crypto_shorthash_keygen(r->hash_key);
    pthread_mutex_init(&r->lock, NULL);
    return r;
}

void ratelimit_free(struct ratelimit *r)
{
    if (!r)
        return;
    pthread_mutex_destroy(&r->lock);
    free(r->b);
    free(r);
}

/* The first slot to probe for key (truncated to KEY_LEN - 1 bytes, as
 * stored). */
static size_t slot_of(const struct ratelimit *r, const char *key)
{
    unsigned char h[crypto_shorthash_BYTES];
    uint64_t v = 0;
    crypto_shorthash(h, (const unsigned char *)key, strnlen(key, KEY_LEN - 1), r->hash_key);
    memcpy(&v, h, sizeof v);
    return (size_t)v & (r->n - 1);
}

static double level(const struct ratelimit *r, const struct bucket *b, int64_t now)
{
    double t = b->tokens + (double)(now - b->updated_ms) * r->per_ms;
    return t > r->burst ? r->burst : t;
}

int ratelimit_take(struct ratelimit *r, const char *key, int64_t now_ms)
{
    struct bucket *hit = NULL, *reuse = NULL;
    int wait = 0;
    size_t mask = r->n - 1, i = slot_of(r, key);
    pthread_mutex_lock(&r->lock);
    /* Probe a bounded window; keys are truncated to KEY_LEN - 1 bytes. */
    for (size_t k = 0; k < PROBES; k++, i = (i + 1) & mask) {
        struct bucket *b = &r->b[i];
        if (b->key[0] == '\0') {
            if (!reuse)
                reuse = b;
            break;
        }
        if (!strncmp(b->key, key, KEY_LEN - 1)) {
            hit = b;
            break;
        }
        if (!reuse && level(r, b, now_ms) >= r->burst)
            reuse = b;
    }
    if (!hit) {
        if (!reuse)
            goto out; /* table saturated with active keys: fail open */
        hit = reuse;
        strncpy(hit->key, key, KEY_LEN - 1);
        hit->key[KEY_LEN - 1] = '\0';
        hit->tokens = r->burst;
        hit->updated_ms = now_ms;
    }
    hit->tokens = level(r, hit, now_ms);
    hit->updated_ms = now_ms;
    if (hit->tokens >= 1.0) {
        hit->tokens -= 1.0;
    } else {
        double ms = (1.0 - hit->tokens) / r->per_ms;
        wait = (int)(ms / 1000.0) + 1;
    }
out:
    pthread_mutex_unlock(&r->lock);
    return wait;
}

void ratelimit_refund(struct ratelimit *r, const char *key, int64_t now_ms)
{
    size_t mask = r->n - 1, i = slot_of(r, key);
    pthread_mutex_lock(&r->lock);
    for (size_t k = 0; k < PROBES; k++, i = (i + 1) & mask) {
        struct bucket *b = &r->b[i];
        if (b->key[0] == '\0')
            break;
        if (!strncmp(b->key, key, KEY_LEN - 1)) {
            b->tokens = level(r, b, now_ms) + 1.0;
            if (b->tokens > r->burst)
                b->tokens = r->burst;
            b->updated_ms = now_ms;
            break;
        }
    }
    pthread_mutex_unlock(&r->lock);
}
