/*
 * jsonget — typed, path-named getters over jansson (see jsonget.h).
 *
 * The loader of problem.json uses these for every field, so that every
 * message names the field the way the instructor wrote it.
 */
#include "judge/jsonget.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/errbuf.h"

void jsonget_path(char *out, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(out, JSONGET_PATH_LEN, fmt, ap);
    va_end(ap);
}

void jsonget_path_key(char *out, const char *path, const char *key)
{
    jsonget_path(out, "%s%s%s", path, *path ? "." : "", key);
}

void jsonget_path_index(char *out, const char *path, size_t i)
{
    jsonget_path(out, "%s[%zu]", path, i);
}

int jsonget_keys(json_t *obj, const char *path, const char *const *allowed, char *err,
                 size_t errlen)
{
    const char *key;
    json_t *v;

    json_object_foreach(obj, key, v)
    {
        const char *const *a;

        for (a = allowed; *a; a++)
            if (strcmp(*a, key) == 0)
                break;
        if (*a)
            continue;
        if (*path)
            errbuf_set(err, errlen, "%s: unknown key '%s'", path, key);
        else
            errbuf_set(err, errlen, "unknown top-level key '%s'", key);
        return -1;
    }
    return 0;
}

int jsonget_missing(const char *path, const char *key, char *err, size_t errlen)
{
    if (*path)
        errbuf_set(err, errlen, "%s: missing '%s'", path, key);
    else
        errbuf_set(err, errlen, "missing '%s'", key);
    return -1;
}

int jsonget_string(json_t *obj, const char *path, const char *key, bool required, const char **out,
                   char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    char fp[JSONGET_PATH_LEN];

    *out = NULL;
    if (!v)
        return required ? jsonget_missing(path, key, err, errlen) : 0;
    jsonget_path_key(fp, path, key);
    if (!json_is_string(v)) {
        errbuf_set(err, errlen, "%s: must be a string", fp);
        return -1;
    }
    if (json_string_length(v) != strlen(json_string_value(v))) {
        errbuf_set(err, errlen, "%s: contains a NUL character", fp);
        return -1;
    }
    *out = json_string_value(v);
    return 0;
}

int jsonget_int(json_t *obj, const char *path, const char *key, int64_t min, int64_t max,
                int64_t *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    char fp[JSONGET_PATH_LEN];

    jsonget_path_key(fp, path, key);
    if (!json_is_integer(v)) {
        errbuf_set(err, errlen, "%s: must be an integer", fp);
        return -1;
    }
    if (json_integer_value(v) < min || json_integer_value(v) > max) {
        errbuf_set(err, errlen, "%s: must be between %" PRId64 " and %" PRId64, fp, min, max);
        return -1;
    }
    *out = json_integer_value(v);
    return 0;
}

int jsonget_number(json_t *obj, const char *path, const char *key, double *out, char *err,
                   size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    char fp[JSONGET_PATH_LEN];

    jsonget_path_key(fp, path, key);
    if (!json_is_number(v)) {
        errbuf_set(err, errlen, "%s: must be a number", fp);
        return -1;
    }
    *out = json_number_value(v);
    return 0;
}

int jsonget_strings(json_t *obj, const char *key, size_t max, bool (*valid)(const char *),
                    const char *what, char ***out, size_t *n_out, char *err, size_t errlen)
{
    json_t *arr = json_object_get(obj, key);
    size_t i;
    json_t *v;

    if (!arr)
        return 0;
    if (!json_is_array(arr)) {
        errbuf_set(err, errlen, "%s: must be an array of strings", key);
        return -1;
    }
    if (json_array_size(arr) > max) {
        errbuf_set(err, errlen, "%s: more than %zu entries", key, max);
        return -1;
    }
    *out = calloc(json_array_size(arr) + 1, sizeof **out);
    if (!*out) {
        errbuf_set(err, errlen, "out of memory");
        return -1;
    }
    json_array_foreach(arr, i, v)
    {
        if (!json_is_string(v) || json_string_length(v) != strlen(json_string_value(v))) {
            errbuf_set(err, errlen, "%s[%zu]: must be a string", key, i);
            return -1;
        }
        if (valid && !valid(json_string_value(v))) {
            errbuf_set(err, errlen, "%s[%zu]: '%s' is not %s", key, i, json_string_value(v), what);
            return -1;
        }
        (*out)[i] = strdup(json_string_value(v));
        if (!(*out)[i]) {
            errbuf_set(err, errlen, "out of memory");
            return -1;
        }
        *n_out = i + 1;
    }
    return 0;
}
