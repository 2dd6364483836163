/*
 * Fuzz target: the report's UTF-8 scrubber (judge/utf8.c), which turns
 * compiler diagnostics and a student program's output into JSON strings.
 *
 * Besides "no crash", it checks the scrubber against jansson's own UTF-8
 * check, so the two can never disagree: scrubbed text is always accepted,
 * text jansson accepts is never changed, and the length is kept.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "judge/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';

    json_t *raw = json_stringn((const char *)data, size);
    size_t replaced = utf8_scrub(copy, size);
    if (raw && replaced)
        abort(); /* changed text that was valid UTF-8 */
    json_t *clean = json_stringn(copy, size);
    if (!clean)
        abort(); /* scrubbed text that JSON still refuses */
    json_decref(clean);
    json_decref(raw);

    /* the report's entry point, on the text up to the first NUL */
    memcpy(copy, data, size);
    json_t *j = utf8_json_string(copy);
    if (!json_is_string(j) || json_string_length(j) != strlen(copy))
        abort();
    json_decref(j);
    free(copy);
    return 0;
}
