/*
 * isotime — date-times as the API and problem.json write them: ISO 8601 in
 * the RFC 3339 profile, e.g. "2025-03-01T12:00:00.123Z" or
 * "2025-03-01T13:00:00+01:00", read into and written from milliseconds
 * since the Unix epoch. libc only (util/ is the floor).
 */
#ifndef ATTNJUDGE_ISOTIME_H
#define ATTNJUDGE_ISOTIME_H

#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

/* Room for isotime_format's text and its NUL. */
#define ISOTIME_LEN 32

/* Parses YYYY-MM-DDTHH:MM[:SS[.fraction]] followed by Z or an offset
 * +HH:MM / -HH:MM, the whole string and nothing else ('T' and 'Z' in either
 * case; digits beyond milliseconds are dropped). A time zone is required:
 * "12:00" alone names a different instant in every zone. Fields must be in
 * range (February 30th, 24:00 and leap seconds are refused) and the instant
 * after 1970-01-01T00:00:00Z and before the year 10000. Returns 0 with *ms
 * set, or -1 with errno EINVAL (*ms untouched). */
int isotime_parse(const char *s, int64_t *ms) MUST_CHECK;

/* Writes ms (> 0) as "YYYY-MM-DDTHH:MM:SS.mmmZ" into buf (ISOTIME_LEN
 * bytes). Returns 0, or -1 with errno EINVAL for ms <= 0 or past the year
 * 9999. */
int isotime_format(int64_t ms, char buf[ISOTIME_LEN]) MUST_CHECK;

#endif
