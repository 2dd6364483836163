/*
 * utf8 — text from compilers and programs made valid UTF-8 for JSON, and
 * the code points a name must not hold.
 *
 * Well-formed UTF-8 is exactly the byte sequences of the Unicode standard's
 * table 3-7: the second byte's range depends on the first (E0 needs A0..BF
 * so that no code point has two encodings; ED stops at 9F, before the
 * surrogates; F4 stops at 8F, at U+10FFFF). Checking those ranges, rather
 * than decoding and then range-checking the code point, accepts the same
 * set as jansson's own check, which tests/fuzz/utf8.c verifies on every
 * input it is given.
 */
#include "judge/utf8.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_sequence_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4;
    else
        return 0; /* continuation byte, C0/C1 (overlong), F5..FF */
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    return len;
}

size_t utf8_scrub(char *s, size_t n)
{
    unsigned char *u = (unsigned char *)s;
    size_t replaced = 0;

    for (size_t i = 0; i < n;) {
        size_t len = utf8_sequence_len(u + i, n - i);
        if (len) {
            i += len;
        } else {
            u[i++] = '?';
            replaced++;
        }
    }
    return replaced;
}

/* Decodes the well-formed sequence of len bytes at s. */
static long decode(const unsigned char *s, size_t len)
{
    static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    long cp = s[0] & lead_mask[len];
    for (size_t k = 1; k < len; k++)
        cp = (cp << 6) | (s[k] & 0x3f);
    return cp;
}

/* Unicode's general category Cf (format) as of Unicode 15.1, as ranges;
 * ZWNJ and ZWJ (U+200C, U+200D) are left out on purpose (utf8.h). */
static const long format_ranges[][2] = {
    {0x00ad, 0x00ad},   {0x0600, 0x0605},   {0x061c, 0x061c},   {0x06dd, 0x06dd},
    {0x070f, 0x070f},   {0x0890, 0x0891},   {0x08e2, 0x08e2},   {0x180e, 0x180e},
    {0x200b, 0x200b},   {0x200e, 0x200f},   {0x202a, 0x202e},   {0x2060, 0x2064},
    {0x2066, 0x206f},   {0xfeff, 0xfeff},   {0xfff9, 0xfffb},   {0x110bd, 0x110bd},
    {0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a},
    {0xe0001, 0xe0001}, {0xe0020, 0xe007f},
};

static bool forbidden(long cp)
{
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)
        return true;
    for (size_t i = 0; i < sizeof format_ranges / sizeof format_ranges[0]; i++)
        if (cp >= format_ranges[i][0] && cp <= format_ranges[i][1])
            return true;
    return false;
}

long utf8_name_forbidden(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t len = utf8_sequence_len(u + i, n - i);
        if (!len)
            return UTF8_NOT_UTF8;
        long cp = decode(u + i, len);
        if (forbidden(cp))
            return cp;
        i += len;
    }
    return UTF8_CLEAN;
}

json_t *utf8_json_string(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s);
    char *copy = malloc(n + 1);
    if (!copy)
        return json_null();
    memcpy(copy, s, n + 1);
    utf8_scrub(copy, n);
    j = json_string(copy);
    free(copy);
    return j ? j : json_null();
}
