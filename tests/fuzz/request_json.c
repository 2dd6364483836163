/*
 * Fuzz target: the JSON bodies of the HTTP API (server/request.c
 * request_json_body), which anyone on the network may send. Input: the
 * first byte picks a route's format, the bytes up to the first newline are
 * the Content-Type header, the rest is the body. An accepted body must be
 * an object (json_unpack_ex's strict mode has checked its fields), and
 * every refusal must be a 4xx answer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/http.h"
#include "server/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Unpacks the body as route k does (the handlers under server/: the same formats);
 * returns the response, and in *root the object. */
static struct http_response *route_body(int k, const char *ct, const char *body, size_t len,
                                        json_t **root)
{
    const char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
    size_t na = 0, nb = 0, nc = 0, nd = 0, ne = 0;
    int flag = 0;
    json_t *mistakes = NULL, *hints = NULL; /* borrowed from *root */
    switch (k) {
    case 0: /* POST /api/users */
        return request_json_body(ct, body, len, root, "users", "{s:s%, s:s%, s?s%, s?s%}",
                                 "username", &a, &na, "password", &b, &nb, "class_code", &c, &nc,
                                 "role", &d, &nd);
    case 1: /* POST /api/sessions */
        return request_json_body(ct, body, len, root, "sessions", "{s:s%, s:s%, s?b}", "username",
                                 &a, &na, "password", &b, &nb, "cookie", &flag);
    case 2: /* POST/PUT /api/problems */
        return request_json_body(
            ct, body, len, root, "packages", "{s:s%, s:s%, s:s%, s:s%, s?o, s?o, s?s%}",
            "problem_json", &a, &na, "statement_md", &b, &nb, "starter_c", &c, &nc, "reference_c",
            &d, &nd, "mistakes", &mistakes, "hints", &hints, "walkthrough_md", &e, &ne);
    case 3: /* rejudge, cancel, open a hint */
        return request_json_body(ct, body, len, root, "no fields", "{}");
    default: /* POST /api/submissions */
        return request_json_body(ct, body, len, root, "submissions", "{s:s%, s:s%}", "problem", &a,
                                 &na, "source", &b, &nb);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int route = data[0] % 5;
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
    struct http_response *r = route_body(route, ct, body, len, &o);
    if (r) {
        if (o || r->status < 400 || r->status > 499)
            abort();
        http_response_free(r);
    } else {
        if (!json_is_object(o))
            abort();
        json_decref(o);
    }
    free(body);
    free(ct);
    return 0;
}
