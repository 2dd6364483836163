/*
 * catalog_api — the problems as the API serves them (docs/api.md,
 * "Problems"): the list and one problem's detail, an instructor's upload
 * (new or a new version), state and schedule, and delete, and the sample
 * archive. The catalog (catalog.h) keeps the problems; this file checks
 * what a request asks of it and shapes the answer.
 */
#include "server/catalog_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/names.h"
#include "server/catalog.h"
#include "server/hints.h"
#include "server/request.h"
#include "util/clock.h"
#include "util/isotime.h"

struct http_response *catalog_api_list(struct app *a, struct http_request *req,
                                       const struct caller *me)
{
    size_t len = 0;
    (void)req;
    (void)me;
    char *text = catalog_list_json(a->catalog, me->instructor, clock_wall_ms(), &len);
    return text ? http_response_new(200, "application/json; charset=utf-8", text, len) : NULL;
}

/* The catalog's body plus the caller's hints and walkthrough state
 * (server/hints.c). */
struct http_response *catalog_api_get(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    size_t len = 0;
    struct http_response *r;
    if (!names_slug_valid(req->param))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    struct store *s = store_pool_get(a->pool);
    char *text = catalog_detail_json(a->catalog, req->param, me->instructor, clock_wall_ms(), &len);
    if (!text) {
        store_pool_put(a->pool, s);
        return http_error(404, "not_found", "no problem '%s'", req->param);
    }
    json_t *o = json_loadb(text, len, 0, NULL);
    free(text);
    if (!o || hints_add_view(a, s, o, me, clock_wall_ms()) < 0)
        r = request_internal("problem view", s);
    else
        r = http_json(200, json_incref(o));
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

/* The optional "mistakes" member of an upload: {id: C source}, the files
 * mistakes/<id>.c of the package (docs/api.md). Ids must be slugs, since
 * they become file names; problem.json decides which are used. */
static struct http_response *upload_mistakes(json_t *o, size_t max, struct catalog_package *pkg)
{
    json_t *m = json_object_get(o, "mistakes"), *v;
    const char *id;
    pkg->n_mistakes = 0;
    if (!m || json_is_null(m))
        return NULL;
    if (!json_is_object(m))
        return http_error(400, "invalid_request",
                          "field 'mistakes' must be an object {id: C source}");
    if (json_object_size(m) > PROBLEM_MAX_MISTAKES)
        return http_error(400, "invalid_request", "field 'mistakes' has more than %d entries",
                          PROBLEM_MAX_MISTAKES);
    json_object_foreach(m, id, v)
    {
        if (!names_slug_valid(id))
            return http_error(400, "invalid_request", "mistakes: '%.64s' is not a valid id", id);
        if (!json_is_string(v) || json_string_length(v) < 1 || json_string_length(v) > max)
            return http_error(400, "invalid_request",
                              "mistakes.%s: must be a string of 1 to %zu bytes", id, max);
        pkg->mistake_id[pkg->n_mistakes] = id;
        pkg->mistake_c[pkg->n_mistakes++] = json_string_value(v);
    }
    return NULL;
}

/* The optional "hints" member of an upload: the texts of hints/1.md ... in
 * order (docs/api.md). The loader checks them again once written. */
static struct http_response *upload_hints(json_t *o, struct catalog_package *pkg)
{
    json_t *arr = json_object_get(o, "hints"), *v;
    size_t i;
    pkg->n_hints = 0;
    if (!arr)
        return NULL;
    if (!json_is_array(arr) || json_array_size(arr) > PROBLEM_MAX_HINTS)
        return http_error(400, "invalid_request",
                          "field 'hints' must be an array of at most %d Markdown strings",
                          PROBLEM_MAX_HINTS);
    json_array_foreach(arr, i, v)
    {
        if (!json_is_string(v) || json_string_length(v) < 1 ||
            json_string_length(v) > PROBLEM_HINT_MAX)
            return http_error(400, "invalid_request",
                              "hints[%zu]: must be a string of 1 to %d bytes", i, PROBLEM_HINT_MAX);
        pkg->hint_md[pkg->n_hints++] = json_string_value(v);
    }
    return NULL;
}

/* 422 invalid_problem: message is the first failure, as always; when the
 * package's schema or files failed to load, "errors" lists every error
 * with its field (docs/api.md). */
static struct http_response *invalid_problem(const char *message,
                                             const struct problem_errors *errors)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < errors->n; i++) {
        const struct problem_error *e = &errors->e[i];
        size_t n = strlen(e->field);
        const char *text = e->text;
        if (n && strncmp(text, e->field, n) == 0 && strncmp(text + n, ": ", 2) == 0)
            text += n + 2;
        json_array_append_new(list, json_pack("{s:s, s:s}", "field", e->field, "message", text));
    }
    if (!list || !errors->n) {
        json_decref(list);
        return http_error(422, "invalid_problem", "%s", message);
    }
    return http_json(422, json_pack("{s:{s:s, s:s}, s:o, s:I}", "error", "code", "invalid_problem",
                                    "message", message, "errors", list, "errors_not_listed",
                                    (json_int_t)errors->n_more));
}

static struct http_response *upload(struct app *a, struct http_request *req,
                                    const struct caller *me, const char *url_slug)
{
    size_t max = (size_t)a->cfg->max_package_bytes;
    struct catalog_package pkg = {0};
    size_t n_json = 0, n_md = 0, n_starter = 0, n_ref = 0, n_walk = 0, n_state = 0;
    json_t *o = NULL, *mistakes = NULL, *hints = NULL; /* borrowed from o */
    struct http_response *r;
    struct store *s = NULL;
    char err[2048], slug[80];
    int version = 0;
    struct problem_errors errors = {0};
    struct catalog_upload_note note = {0};

    if (url_slug && !names_slug_valid(url_slug))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    if ((r = request_body(req, &o,
                          "{\"problem_json\", \"statement_md\", \"starter_c\", \"reference_c\": "
                          "strings; \"mistakes\": optional {id: C source}; \"hints\": optional "
                          "[Markdown]; \"walkthrough_md\": optional string; \"state\": optional "
                          "\"draft\" | \"published\" | \"archived\"}",
                          "{s:s%, s:s%, s:s%, s:s%, s?o, s?o, s?s%, s?s%}", "problem_json",
                          &pkg.problem_json, &n_json, "statement_md", &pkg.statement_md, &n_md,
                          "starter_c", &pkg.starter_c, &n_starter, "reference_c", &pkg.reference_c,
                          &n_ref, "mistakes", &mistakes, "hints", &hints, "walkthrough_md",
                          &pkg.walkthrough_md, &n_walk, "state", &pkg.state, &n_state)))
        return r;
    if (pkg.state && (strlen(pkg.state) != n_state || !catalog_state_valid(pkg.state))) {
        json_decref(o);
        return http_error(400, "invalid_state", "state must be draft, published or archived");
    }
    if ((r = request_field_len("problem_json", pkg.problem_json, n_json, 2, max)) ||
        (r = request_field_len("statement_md", pkg.statement_md, n_md, 1, max)) ||
        (r = request_field_len("starter_c", pkg.starter_c, n_starter, 1, max)) ||
        (r = request_field_len("reference_c", pkg.reference_c, n_ref, 1, max)) ||
        (r = request_field_len("walkthrough_md", pkg.walkthrough_md, n_walk, 1, max)) ||
        (r = upload_mistakes(o, max, &pkg)) || (r = upload_hints(o, &pkg)))
        goto out;
    s = store_pool_get(a->pool);
    int rc = catalog_upload(a->catalog, s, a->judge, url_slug, &pkg, me->u.id, &version, slug,
                            sizeof slug, &note, err, sizeof err, &errors);
    switch (rc) {
    case 0: break;
    case CATALOG_INVALID: r = invalid_problem(err, &errors); goto out;
    case CATALOG_EXISTS: r = http_error(409, "problem_exists", "%s", err); goto out;
    case CATALOG_MISMATCH: r = http_error(400, "slug_mismatch", "%s", err); goto out;
    default:
        fprintf(stderr, "attnjudge: problem upload: %s\n", err);
        r = http_error(500, "internal", "could not store the problem; see the server log");
        goto out;
    }
    /* math_note only when KaTeX could not check the math (docs/api.md) */
    r = http_json(version == 1 ? 201 : 200,
                  json_pack("{s:s, s:i, s:b, s:s*}", "slug", slug, "version", version,
                            "math_checked", note.math_checked, "math_note",
                            note.math_checked ? NULL : note.math_note));
    if (r) {
        char loc[128];
        snprintf(loc, sizeof loc, "/api/problems/%s", slug);
        http_add_header(r, "Location", loc);
    }
out:
    problem_errors_free(&errors);
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

struct http_response *catalog_api_create(struct app *a, struct http_request *req,
                                         const struct caller *me)
{
    return upload(a, req, me, NULL);
}

struct http_response *catalog_api_put(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    return upload(a, req, me, req->param);
}

/* PATCH /api/problems/{slug} {"state", "publish_at"}: either or both. A
 * state without publish_at clears the schedule; publish_at alone keeps
 * the state. */
struct http_response *catalog_api_patch(struct app *a, struct http_request *req,
                                        const struct caller *me)
{
    json_t *o = NULL, *at = NULL;
    const char *state = NULL;
    size_t n_state = 0;
    struct http_response *r;
    int64_t publish_at = 0;
    (void)me;
    if (!names_slug_valid(req->param))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    if ((r = request_body(req, &o,
                          "{\"state\": optional \"draft\" | \"published\" | \"archived\"; "
                          "\"publish_at\": optional ISO 8601 date-time or null}",
                          "{s?s%, s?o}", "state", &state, &n_state, "publish_at", &at)))
        return r;
    if (!state && !at) {
        r = http_error(400, "invalid_request", "give \"state\", \"publish_at\" or both");
        goto out;
    }
    if (state && (strlen(state) != n_state || !catalog_state_valid(state))) {
        r = http_error(400, "invalid_state", "state must be draft, published or archived");
        goto out;
    }
    if (at && !json_is_null(at) &&
        (!json_is_string(at) || isotime_parse(json_string_value(at), &publish_at) < 0 ||
         publish_at <= 0)) {
        r = http_error(400, "invalid_date",
                       "publish_at must be an ISO 8601 date-time with a time zone, or null");
        goto out;
    }
    struct store *s = store_pool_get(a->pool);
    char cur_state[16] = "";
    int64_t cur_at = 0;
    struct store_problem_version cur;
    int rc = store_problem_current(s, req->param, &cur);
    if (rc == 0) {
        snprintf(cur_state, sizeof cur_state, "%s", cur.state);
        cur_at = cur.publish_at;
        rc = catalog_set_state(a->catalog, s, req->param, state ? state : cur_state,
                               at      ? publish_at
                               : state ? 0
                                       : cur_at);
    } else if (rc == STORE_NOT_FOUND) {
        rc = CATALOG_NOT_FOUND;
    }
    if (rc == CATALOG_NOT_FOUND) {
        r = http_error(404, "not_found", "no problem '%s'", req->param);
    } else if (rc < 0) {
        r = request_internal("problem state", s);
    } else {
        size_t len = 0;
        char *text = catalog_detail_json(a->catalog, req->param, true, clock_wall_ms(), &len);
        json_t *d = text ? json_loadb(text, len, 0, NULL) : NULL;
        free(text);
        r = d ? http_json(200, json_pack("{s:s, s:O, s:O}", "slug", req->param, "state",
                                         json_object_get(d, "state"), "publish_at",
                                         json_object_get(d, "publish_at")))
              : NULL;
        json_decref(d);
    }
    store_pool_put(a->pool, s);
out:
    json_decref(o);
    return r;
}

struct http_response *catalog_api_delete(struct app *a, struct http_request *req,
                                         const struct caller *me)
{
    char err[256];
    (void)me;
    if (!names_slug_valid(req->param))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    struct store *s = store_pool_get(a->pool);
    int rc = catalog_delete(a->catalog, s, req->param, err, sizeof err);
    struct http_response *r;
    if (rc == CATALOG_NOT_FOUND)
        r = http_error(404, "not_found", "%s", err);
    else if (rc == CATALOG_EXISTS)
        r = http_error(409, "has_submissions", "%s", err);
    else if (rc < 0) {
        fprintf(stderr, "attnjudge: delete problem: %s\n", err);
        r = http_error(500, "internal", "could not delete the problem; see the server log");
    } else
        r = http_response_new(204, NULL, NULL, 0);
    store_pool_put(a->pool, s);
    return r;
}

/* The sample archive (judge/samples.h): anyone who may see the problem. */
struct http_response *catalog_api_samples(struct app *a, struct http_request *req,
                                          const struct caller *me)
{
    unsigned char *zip = NULL;
    size_t len = 0;
    char err[512] = "";
    if (!names_slug_valid(req->param))
        return http_error(400, "invalid_slug", "not a valid problem slug");
    struct http_response *gate = request_problem_gate(a, me, req->param, false);
    if (gate)
        return gate;
    int rc = catalog_samples_zip(a->catalog, a->judge, req->param, &zip, &len, err, sizeof err);
    if (rc == CATALOG_NOT_FOUND)
        return http_error(404, "not_found", "no problem '%s'", req->param);
    if (rc < 0) {
        fprintf(stderr, "attnjudge: samples of %s: %s\n", req->param, err);
        return http_error(500, "internal", "internal error; the server log has the details");
    }
    struct http_response *r = http_response_new(200, "application/zip", (char *)zip, len);
    if (r) {
        char v[sizeof req->param + 64];
        snprintf(v, sizeof v, "attachment; filename=\"%s-samples.zip\"", req->param);
        http_add_header(r, "Content-Disposition", v);
    }
    return r;
}
