/*
 * catalog_json — the JSON bodies of GET /api/problems and GET
 * /api/problems/{slug}, built once per change of the registry and cached
 * on its entries, so that a read serves bytes under the read lock (see
 * catalog_json.h).
 *
 * The list is in path order (judge/path.h) of the current versions. A
 * change builds every body first and only then puts them in use, so a
 * failure (out of memory) leaves the bodies in use as they were.
 */
#include "server/catalog_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "judge/harness.h"
#include "judge/judge.h"
#include "judge/markdown.h"
#include "judge/path.h"
#include "util/isotime.h"

static json_t *str_array(char **v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(v[i]))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *limits_json(const struct problem_limits *l)
{
    return json_pack("{s:I, s:I, s:I}", "cpu_ms", (json_int_t)l->cpu_ms, "wall_ms",
                     (json_int_t)l->wall_ms, "memory_mb", (json_int_t)l->memory_mb);
}

static const char *dim_name(const struct problem *p, int d)
{
    for (int i = 0; i < p->n_params; i++)
        if (p->params[i].kind == PARAM_INT && p->params[i].dim_index == d)
            return p->params[i].name;
    return "?";
}

/* The package's benchmark sizes, public (their inputs are fresh random
 * data at every call, docs/performance.md): {"flops", "bytes", "sizes":
 * [{"name", "dims"}]}, or null when it lists none. */
static json_t *benchmark_json(const struct problem *p)
{
    if (!p->bench.n_sizes)
        return json_null();
    json_t *sizes = json_array();
    for (size_t i = 0; sizes && i < p->bench.n_sizes; i++) {
        const struct test_case *tc = &p->bench.sizes[i];
        json_t *dims = json_object();
        for (int d = 0; dims && d < p->n_dims; d++)
            if (json_object_set_new(dims, dim_name(p, d), json_integer(tc->dims[d])))
                break;
        if (json_array_append_new(sizes, json_pack("{s:s, s:o*}", "name", tc->name, "dims", dims)) <
            0) {
            json_decref(sizes);
            sizes = NULL;
        }
    }
    json_t *o = sizes ? json_pack("{s:s, s:s, s:o}", "flops", p->bench.flops_text, "bytes",
                                  p->bench.bytes_text, "sizes", sizes)
                      : NULL;
    return o ? o : json_null();
}

/* Sets "scalars" on o to tc's float parameter values, if p has any: a
 * sample case must be reproducible from what the API shows. 0 or -1. */
static int scalars_json(const struct problem *p, const struct test_case *tc, json_t *o)
{
    json_t *sj = NULL;
    for (int i = 0; i < p->n_params; i++) {
        if (p->params[i].kind != PARAM_FLOAT)
            continue;
        if (!sj && (!(sj = json_object()) || json_object_set_new(o, "scalars", sj) < 0))
            return -1;
        if (json_object_set_new(sj, p->params[i].name, json_real(tc->scalars[i])) < 0)
            return -1;
    }
    return 0;
}

static json_t *detail_json(const struct problem *p, int version)
{
    json_t *o = NULL, *params = NULL, *tests = NULL;
    char *html = NULL, proto[2048];
    if (harness_prototype(p, proto, sizeof proto - 1) < 0)
        snprintf(proto, sizeof proto, "void %s(...)", p->function);
    else
        strcat(proto, ";");
    if (!(html = markdown_html(p->statement_md ? p->statement_md : "",
                               p->statement_md ? strlen(p->statement_md) : 0)))
        goto fail;
    if (!(params = json_array()) || !(tests = json_array()))
        goto fail;
    for (int i = 0; i < p->n_params; i++) {
        const struct param *pa = &p->params[i];
        json_t *x;
        if (pa->kind == PARAM_INT) {
            x = json_pack("{s:s, s:s}", "name", pa->name, "type", "int");
        } else if (pa->kind == PARAM_FLOAT) {
            x = json_pack("{s:s, s:s, s:f}", "name", pa->name, "type", problem_scalar_ctype(pa),
                          "value", pa->value);
        } else {
            json_t *shape = json_array();
            for (int k = 0; shape && k < pa->rank; k++)
                if (json_array_append_new(shape, json_string(pa->shape_text[k])))
                    break;
            x = json_pack("{s:s, s:s, s:s, s:o, s:b}", "name", pa->name, "type",
                          tensor_dtype_name(pa->dtype), "role", problem_role_name(pa->role),
                          "shape", shape, "nullable", pa->nullable);
        }
        if (!x || json_array_append_new(params, x))
            goto fail;
    }
    for (size_t t = 0; t < p->n_tests; t++) {
        const struct test_case *tc = &p->tests[t];
        json_t *dims = json_object(), *x;
        for (int d = 0; dims && d < p->n_dims; d++)
            if (json_object_set_new(dims, dim_name(p, d), json_integer(tc->dims[d])))
                break;
        x = json_pack("{s:s, s:s, s:o, s:i, s:o}", "name", tc->name, "kind",
                      problem_test_kind_name(tc->kind), "dims", dims, "weight", tc->weight,
                      "limits", limits_json(&tc->limits));
        /* Sample seeds are public (docs/contract.md §4); hidden seeds never leave. */
        if (x && tc->kind == TEST_SAMPLE && tc->has_seed)
            json_object_set_new(x, "seed", json_integer((json_int_t)tc->seed));
        if (x && tc->kind == TEST_SAMPLE && scalars_json(p, tc, x) < 0) {
            json_decref(x);
            goto fail;
        }
        if (!x || json_array_append_new(tests, x))
            goto fail;
    }
    o = json_pack("{s:s, s:i, s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:s, s:s, s:o,"
                  " s:{s:f, s:f, s:b}, s:o, s:{s:i}, s:{s:b}}",
                  "slug", p->slug, "version", version, "title", p->title ? p->title : p->slug,
                  "difficulty", p->difficulty ? p->difficulty : "", "tags",
                  str_array(p->tags, p->n_tags), "prerequisites",
                  str_array(p->prereqs, p->n_prereqs), "function", p->function, "signature", proto,
                  "statement_md", p->statement_md ? p->statement_md : "", "statement_html", html,
                  "starter_c", p->starter_c ? p->starter_c : "", "params", params, "tolerance",
                  "atol", p->tol.atol, "rtol", p->tol.rtol, "atol_relative_to_max",
                  p->tol.atol_relative_to_max, "limits", limits_json(&p->limits), "hints", "count",
                  (int)p->n_hints, "walkthrough", "available", p->walkthrough_md != NULL);
    params = NULL;
    if (!o)
        goto fail;
    if (json_object_set_new(o, "tests", tests)) {
        tests = NULL;
        goto fail;
    }
    if (json_object_set_new(o, "benchmark", benchmark_json(p)) < 0) {
        json_decref(o);
        o = NULL;
    }
    free(html);
    return o;
fail:
    free(html);
    json_decref(params);
    json_decref(tests);
    json_decref(o);
    return NULL;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->slug, ((const struct entry *)b)->slug);
}

/* Puts the entries in path order (judge/path.h) of their current versions;
 * entries whose current version did not load go last, by slug. Returns 0,
 * or -1 when out of memory (the entries are then in slug order). */
static int order_entries(struct catalog *r)
{
    const struct problem **ps = NULL;
    size_t *idx = NULL, *order = NULL, n = 0, k = 0;
    struct entry *sorted = NULL;
    int rc = -1;

    qsort(r->e, r->n, sizeof *r->e, cmp_entry);
    if (r->n < 2)
        return 0;
    if (!(ps = calloc(r->n, sizeof *ps)) || !(idx = calloc(r->n, sizeof *idx)) ||
        !(order = calloc(r->n, sizeof *order)) || !(sorted = calloc(r->n, sizeof *sorted)))
        goto out;
    for (size_t i = 0; i < r->n; i++) {
        struct problem *p = catalog_loaded(&r->e[i], r->e[i].current);
        if (p) {
            ps[n] = p;
            idx[n++] = i;
        }
    }
    if (path_order(ps, n, order) < 0)
        goto out;
    for (size_t i = 0; i < n; i++)
        sorted[k++] = r->e[idx[order[i]]];
    for (size_t i = 0; i < r->n; i++)
        if (!catalog_loaded(&r->e[i], r->e[i].current))
            sorted[k++] = r->e[i];
    memcpy(r->e, sorted, r->n * sizeof *r->e);
    rc = 0;
out:
    free(ps);
    free(idx);
    free(order);
    free(sorted);
    return rc;
}

void catalog_bodies_free(struct catalog_bodies *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->detail ? b->detail[i] : NULL);
        free(b->item ? b->item[i] : NULL);
    }
    free(b->detail);
    free(b->detail_len);
    free(b->item);
    free(b->item_len);
    memset(b, 0, sizeof *b);
}

/* Adds an entry's state and publish_at (ISO 8601 or null) to o. */
static int state_json(const struct entry *e, json_t *o)
{
    char when[ISOTIME_LEN];
    json_t *at = e->publish_at > 0 && isotime_format(e->publish_at, when) == 0 ? json_string(when)
                                                                               : json_null();
    return json_object_set_new(o, "state", json_string(e->state)) ||
                   json_object_set_new(o, "publish_at", at)
               ? -1
               : 0;
}

/* Builds the bodies of the registry's state into b, changing nothing in
 * use but the entries' order; caller holds the write lock. */
int catalog_bodies_build(struct catalog *r, struct catalog_bodies *b)
{
    int rc = -1;
    memset(b, 0, sizeof *b);
    if (order_entries(r) < 0)
        goto out;
    b->n = r->n;
    if (r->n && (!(b->detail = calloc(r->n, sizeof *b->detail)) ||
                 !(b->detail_len = calloc(r->n, sizeof *b->detail_len)) ||
                 !(b->item = calloc(r->n, sizeof *b->item)) ||
                 !(b->item_len = calloc(r->n, sizeof *b->item_len))))
        goto out;
    for (size_t i = 0; i < r->n; i++) {
        struct entry *e = &r->e[i];
        struct problem *p = catalog_loaded(e, e->current);
        if (!p)
            continue; /* its current version failed to load: not offered */
        json_t *d = detail_json(p, e->current);
        if (d && state_json(e, d) < 0) {
            json_decref(d);
            d = NULL;
        }
        if (!d) {
            fprintf(stderr, "attnjudge: problem %s: cannot describe it (out of memory?)\n",
                    e->slug);
            continue;
        }
        b->detail[i] = json_dumps(d, JSON_COMPACT | JUDGE_JSON_REALS);
        json_decref(d);
        if (!b->detail[i])
            goto out;
        b->detail_len[i] = strlen(b->detail[i]);
        json_t *x = json_pack(
            "{s:s, s:s, s:s, s:o, s:o, s:i, s:i}", "slug", p->slug, "title",
            p->title ? p->title : p->slug, "difficulty", p->difficulty ? p->difficulty : "", "tags",
            str_array(p->tags, p->n_tags), "prerequisites", str_array(p->prereqs, p->n_prereqs),
            "version", e->current, "n_tests", (int)p->n_tests);
        if (x && state_json(e, x) == 0)
            b->item[i] = json_dumps(x, JSON_COMPACT | JUDGE_JSON_REALS);
        json_decref(x);
        if (!b->item[i])
            goto out;
        b->item_len[i] = strlen(b->item[i]);
    }
    rc = 0;
out:
    if (rc != 0)
        catalog_bodies_free(b);
    return rc;
}

/* Puts b in use (cannot fail); b is emptied. Caller holds the write lock
 * and has not reordered the entries since catalog_bodies_build. */
void catalog_bodies_publish(struct catalog *r, struct catalog_bodies *b)
{
    for (size_t i = 0; i < b->n && i < r->n; i++) {
        if (!b->detail[i])
            continue;
        free(r->e[i].detail);
        r->e[i].detail = b->detail[i];
        r->e[i].detail_len = b->detail_len[i];
        b->detail[i] = NULL;
        free(r->e[i].item);
        r->e[i].item = b->item[i];
        r->e[i].item_len = b->item_len[i];
        b->item[i] = NULL;
    }
    catalog_bodies_free(b);
}

/* Rebuilds the cached bodies; caller holds the write lock. On failure the
 * bodies in use are left as they were. */
int catalog_rebuild(struct catalog *r)
{
    struct catalog_bodies b;
    if (catalog_bodies_build(r, &b) < 0)
        return -1;
    catalog_bodies_publish(r, &b);
    return 0;
}
