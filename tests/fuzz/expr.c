/*
 * Fuzz target: shape and constraint expressions of problem packages
 * (judge/expr.c), which instructors upload: parse, list the names, and
 * evaluate with dimension values that include 0, negatives and extremes,
 * so division by zero and overflow are exercised.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "judge/expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int64_t values[] = {0, 1, -1, 2, 3, 7, 64, 4096, INT32_MAX, INT64_MAX, INT64_MIN};

/* Every name gets a value picked by its first byte and length. */
static int lookup(void *ctx, const char *name, int64_t *value)
{
    size_t shift = *(const uint8_t *)ctx;
    size_t n = strlen(name);
    if (name[0] == 'u')
        return -1; /* an unknown dimension */
    *value = values[((unsigned char)name[0] + n + shift) % (sizeof values / sizeof values[0])];
    return 0;
}

static void count_name(void *ctx, const char *name)
{
    *(size_t *)ctx += strlen(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    if (size < 1)
        return 0;
    uint8_t shift = data[0];
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    struct expr *e = expr_parse(text, err, sizeof err);
    if (e) {
        int64_t v;
        size_t names = 0;
        expr_foreach_name(e, count_name, &names);
        expr_eval(e, lookup, &shift, &v, err, sizeof err);
        expr_free(e);
    } else if (!err[0]) {
        abort(); /* a refusal must say why */
    }
    free(text);
    return 0;
}
