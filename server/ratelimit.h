/*
 * ratelimit — token buckets keyed by a string (a user id, an IP address).
 *
 * In memory only: a restart refills every bucket, which is harmless.
 */
#ifndef ATTNJUDGE_SERVER_RATELIMIT_H
#define ATTNJUDGE_SERVER_RATELIMIT_H

#include <stdint.h>

struct ratelimit;

/* Buckets hold up to burst tokens and refill at per_minute tokens a minute.
 * At most max_keys keys are tracked; beyond that, full (idle) buckets are
 * forgotten first. Returns NULL when out of memory. */
struct ratelimit *ratelimit_new(double per_minute, int burst, int max_keys);
void ratelimit_free(struct ratelimit *r);

/* Takes one token for key at time now_ms. Returns 0 when allowed, else the
 * seconds (>= 1) after which a token will be available. */
int ratelimit_take(struct ratelimit *r, const char *key, int64_t now_ms);

/* Gives back the token a successful ratelimit_take took, for limits that
 * count only failures (take before the attempt, refund if it succeeded). The
 * bucket never exceeds burst; a key no longer tracked is left alone. */
void ratelimit_refund(struct ratelimit *r, const char *key, int64_t now_ms);

#endif
