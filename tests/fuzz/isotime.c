/*
 * Fuzz target: ISO 8601 date-times (util/isotime.c isotime_parse), which an
 * instructor sends in `PUT /api/problems/{slug}/walkthrough` and writes in
 * problem.json's walkthrough_opens_at.
 *
 * Besides "no crash", every accepted text is an instant in the documented
 * range, and formatting it and reading it back gives the same instant, so
 * the reader and the API's writer (views_time) never disagree.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/isotime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), buf[ISOTIME_LEN];
    int64_t ms = -7, again = -7;
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (isotime_parse(text, &ms) == 0) {
        if (ms <= 0 || ms >= INT64_C(253402300800000))
            abort(); /* outside 1970 .. 9999 */
        if (isotime_format(ms, buf) != 0 || isotime_parse(buf, &again) != 0 || again != ms)
            abort(); /* the round trip changed the instant */
    } else if (ms != -7 || errno != EINVAL) {
        abort(); /* a refusal touched *ms or did not say EINVAL */
    }
    free(text);
    return 0;
}
