/*
 * isotime — ISO 8601 date-times read strictly and written in UTC.
 *
 * A hand-written reader of one fixed grammar, because libc has none that
 * fits: strptime ignores most range errors and knows no "+01:00" offsets,
 * and timegm depends on the process's zone rules only for what we do not
 * need. Calendar arithmetic is the proleptic Gregorian days-from-civil
 * formula (exact integer arithmetic, no tables, no locale). The reader
 * takes untrusted text (an instructor's request body, a package's
 * problem.json), so it reads at most a fixed number of digits per field and
 * never indexes with what it read; tests/fuzz/isotime.c checks that every
 * accepted string formats back to the same instant.
 */
#include "util/isotime.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#define MS_PER_DAY 86400000LL
/* 10000-01-01T00:00:00Z: the first instant a four-digit year cannot write */
#define LIMIT_MS 253402300800000LL

/* Days since 1970-01-01 of the Gregorian date y-m-d (m 1..12). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool is_leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/* Reads exactly n decimal digits at *p, advancing it. */
static bool digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return true;
}

static bool expect(const char **p, char a, char b)
{
    if (**p != a && **p != b)
        return false;
    (*p)++;
    return true;
}

int isotime_parse(const char *s, int64_t *ms)
{
    int y, mo, d, h, mi, sec = 0, frac = 0, oh = 0, om = 0, sign = 0;
    const char *p = s;

    if (!s || !digits(&p, 4, &y) || !expect(&p, '-', '-') || !digits(&p, 2, &mo) ||
        !expect(&p, '-', '-') || !digits(&p, 2, &d) || !expect(&p, 'T', 't') ||
        !digits(&p, 2, &h) || !expect(&p, ':', ':') || !digits(&p, 2, &mi))
        goto bad;
    if (*p == ':') {
        p++;
        if (!digits(&p, 2, &sec))
            goto bad;
        if (*p == '.') {
            int n = 0;
            p++;
            for (; *p >= '0' && *p <= '9'; p++, n++)
                if (n < 3)
                    frac = frac * 10 + (*p - '0');
            if (n == 0 || n > 9)
                goto bad;
            for (; n < 3; n++)
                frac *= 10;
        }
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p++ == '+' ? 1 : -1;
        if (!digits(&p, 2, &oh) || !expect(&p, ':', ':') || !digits(&p, 2, &om) || oh > 23 ||
            om > 59)
            goto bad;
    } else {
        goto bad; /* no time zone */
    }
    if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 ||
        sec > 59)
        goto bad;
    int64_t t = days_from_civil(y, mo, d) * MS_PER_DAY +
                ((int64_t)h * 3600 + mi * 60 + sec) * 1000 + frac -
                (int64_t)sign * (oh * 60 + om) * 60000;
    if (t <= 0 || t >= LIMIT_MS)
        goto bad;
    *ms = t;
    return 0;
bad:
    errno = EINVAL;
    return -1;
}

int isotime_format(int64_t ms, char buf[ISOTIME_LEN])
{
    if (ms <= 0 || ms >= LIMIT_MS) {
        errno = EINVAL;
        return -1;
    }
    /* civil-from-days, the inverse of days_from_civil */
    int64_t z = ms / MS_PER_DAY + 719468, rem = ms % MS_PER_DAY;
    int64_t era = z / 146097, doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int d = (int)(doy - (153 * mp + 2) / 5 + 1), m = (int)(mp < 10 ? mp + 3 : mp - 9);
    int y = (int)(yoe + era * 400 + (m <= 2));
    /* the moduli change nothing (the ranges hold); they tell the compiler
     * that the text fits */
    snprintf(buf, ISOTIME_LEN, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ", (unsigned)y % 10000u,
             (unsigned)m % 100u, (unsigned)d % 100u, (unsigned)(rem / 3600000) % 100u,
             (unsigned)(rem / 60000 % 60), (unsigned)(rem / 1000 % 60), (unsigned)(rem % 1000));
    return 0;
}
