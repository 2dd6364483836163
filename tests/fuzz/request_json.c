/*
 * Fuzz target: the JSON bodies of the HTTP API (server/routes.c
 * routes_json_body), which anyone on the network may send. Input: the
 * first byte picks a route's field list, the bytes up to the first newline
 * are the Content-Type header, the rest is the body. An accepted body must
 * be an object holding only that route's fields, and every refusal must be
 * a 4xx answer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/http.h"
#include "server/routes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the field lists of the JSON routes (docs/api.md) */
static const char *const users[] = {"username", "password", "class_code", "role", NULL};
static const char *const sessions[] = {"username", "password", "cookie", NULL};
static const char *const packages[] = {"problem_json", "statement_md", "starter_c", "reference_c",
                                       NULL};
static const char *const none[] = {NULL};
static const char *const submissions[] = {"problem", "source", NULL};
static const char *const *const routes[] = {users, sessions, packages, none, submissions};

static int known(const char *const *fields, const char *key)
{
    for (; *fields; fields++)
        if (!strcmp(*fields, key))
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *const *fields = routes[data[0] % (sizeof routes / sizeof routes[0])];
    const uint8_t *rest = data + 1, *nl = memchr(rest, '\n', size - 1);
    size_t ct_len = nl ? (size_t)(nl - rest) : size - 1;
    char *ct = malloc(ct_len + 1);
    if (!ct)
        return 0;
    memcpy(ct, rest, ct_len);
    ct[ct_len] = '\0';
    /* the server's body: NUL-terminated, NULL when empty */
    size_t len = nl ? size - 1 - ct_len - 1 : 0;
    char *body = len ? malloc(len + 1) : NULL;
    if (len && !body) {
        free(ct);
        return 0;
    }
    if (body) {
        memcpy(body, nl + 1, len);
        body[len] = '\0';
    }

    json_t *o = NULL;
    struct http_response *r = routes_json_body(ct, body, len, fields, &o);
    if (r) {
        if (o || r->status < 400 || r->status > 499)
            abort();
        http_response_free(r);
    } else {
        const char *key;
        json_t *v;
        if (!json_is_object(o))
            abort();
        json_object_foreach(o, key, v)
        {
            if (!known(fields, key))
                abort();
        }
        json_decref(o);
    }
    free(body);
    free(ct);
    return 0;
}
