/*
 * problem_domain — "domain" and "search" of problem.json
 * (problem_domain.h).
 *
 * The domain is a promise the statement makes to students, so it is read
 * as strictly as the rest: every integer parameter needs its inclusive
 * range (at least 1: a shape is positive), "values" may name only f32
 * inputs and "masks" only u8 inputs, and every number must be sane. The
 * constraints are not checked against the ranges here: the search keeps
 * only the dims that satisfy them.
 */
#include "judge/problem_domain.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/jsonget.h"

static int load_dims(struct problem_loader *ld, json_t *obj)
{
    struct problem *p = ld->p;
    struct problem_domain *d = &p->domain;
    const char *key;
    json_t *v;

    if (!obj)
        return jsonget_missing("domain", "dims", ld->err, ld->errlen);
    if (!json_is_object(obj))
        return problem_loader_bad(ld, "domain.dims: must be an object");
    json_object_foreach(obj, key, v)
    {
        int i = problem_find_param(p, key);

        if (i < 0 || p->params[i].kind != PARAM_INT)
            return problem_loader_bad(ld, "domain.dims: unknown dimension '%s'", key);
    }
    for (int i = 0; i < p->n_params; i++) {
        const struct param *pa = &p->params[i];
        json_t *r;

        if (pa->kind != PARAM_INT)
            continue;
        if (!(r = json_object_get(obj, pa->name)))
            return problem_loader_bad(ld, "domain.dims: missing '%s'", pa->name);
        if (!json_is_array(r) || json_array_size(r) != 2 ||
            !json_is_integer(json_array_get(r, 0)) || !json_is_integer(json_array_get(r, 1)))
            return problem_loader_bad(ld, "domain.dims.%s: must be [lo, hi], two integers",
                                      pa->name);
        json_int_t lo = json_integer_value(json_array_get(r, 0));
        json_int_t hi = json_integer_value(json_array_get(r, 1));
        if (lo < 1 || hi > INT_MAX || lo > hi)
            return problem_loader_bad(ld, "domain.dims.%s: needs 1 <= lo <= hi <= %d", pa->name,
                                      INT_MAX);
        d->dim_lo[pa->dim_index] = lo;
        d->dim_hi[pa->dim_index] = hi;
    }
    return 0;
}

/* Reads obj (at path, may be NULL): {tensor name: {key: value}}, each
 * name an input tensor of dtype ("an f32 input tensor") whose object has
 * exactly key; read(ld, tensor index, value, its path) takes the value. */
static int load_tensor_entries(struct problem_loader *ld, json_t *obj, const char *path,
                               enum tensor_dtype dtype, const char *key,
                               int (*read)(struct problem_loader *ld, int i, json_t *v,
                                           const char *fp))
{
    const char *const keys[] = {key, NULL};
    struct problem *p = ld->p;
    char fp[JSONGET_PATH_LEN], vp[JSONGET_PATH_LEN];
    const char *name;
    json_t *v;

    if (!obj)
        return 0;
    if (!json_is_object(obj))
        return problem_loader_bad(ld, "%s: must be an object", path);
    json_object_foreach(obj, name, v)
    {
        int i = problem_find_param(p, name);

        jsonget_path_key(fp, path, name);
        if (i < 0 || !param_is_input(&p->params[i]) || p->params[i].dtype != dtype)
            return problem_loader_bad(ld, "%s: '%s' is not a%s %s input tensor", fp, name,
                                      dtype == DT_F32 ? "n" : "", tensor_dtype_name(dtype));
        if (!json_is_object(v))
            return problem_loader_bad(ld, "%s: must be an object", fp);
        if (jsonget_keys(v, fp, keys, ld->err, ld->errlen) != 0)
            return -1;
        if (!json_object_get(v, key))
            return jsonget_missing(fp, key, ld->err, ld->errlen);
        jsonget_path_key(vp, fp, key);
        if (read(ld, i, json_object_get(v, key), vp) != 0)
            return -1;
    }
    return 0;
}

static int read_max_abs(struct problem_loader *ld, int i, json_t *v, const char *fp)
{
    double m = json_number_value(v);

    if (!json_is_number(v) || !(m > 0 && m <= 1e30))
        return problem_loader_bad(ld, "%s: must be > 0 and at most 1e30", fp);
    ld->p->domain.max_abs[i] = m;
    return 0;
}

static int read_row_open(struct problem_loader *ld, int i, json_t *v, const char *fp)
{
    if (!json_is_boolean(v))
        return problem_loader_bad(ld, "%s: must be true or false", fp);
    ld->p->domain.mask_listed[i] = true;
    ld->p->domain.row_open[i] = json_is_true(v);
    return 0;
}

int problem_load_domain(struct problem_loader *ld, json_t *obj)
{
    static const char *const keys[] = {"dims", "values", "masks", "max_elems", NULL};
    struct problem *p = ld->p;
    struct problem_domain *d = &p->domain;

    if (!obj)
        return 0;
    if (!json_is_object(obj))
        return problem_loader_bad(ld, "domain: must be an object");
    if (jsonget_keys(obj, "domain", keys, ld->err, ld->errlen) != 0)
        return -1;
    size_t n = (size_t)(p->n_dims ? p->n_dims : 1);
    if (!(d->dim_lo = calloc(n, sizeof *d->dim_lo)) || !(d->dim_hi = calloc(n, sizeof *d->dim_hi)))
        return problem_loader_bad(ld, "out of memory");
    d->max_elems = PROBLEM_DOMAIN_MAX_ELEMS_DEFAULT;
    if (json_object_get(obj, "max_elems") && jsonget_int(obj, "domain", "max_elems", 1, INT32_MAX,
                                                         &d->max_elems, ld->err, ld->errlen) != 0)
        return -1;
    if (load_dims(ld, json_object_get(obj, "dims")) != 0 ||
        load_tensor_entries(ld, json_object_get(obj, "values"), "domain.values", DT_F32, "max_abs",
                            read_max_abs) != 0 ||
        load_tensor_entries(ld, json_object_get(obj, "masks"), "domain.masks", DT_U8, "row_open",
                            read_row_open) != 0)
        return -1;
    d->present = true;
    return 0;
}

int problem_load_search(struct problem_loader *ld, json_t *obj)
{
    static const char *const keys[] = {"budget_ms", NULL};
    struct problem_search *s = &ld->p->search;

    if (!obj)
        return 0;
    if (!json_is_object(obj))
        return problem_loader_bad(ld, "search: must be an object");
    if (jsonget_keys(obj, "search", keys, ld->err, ld->errlen) != 0)
        return -1;
    if (json_object_get(obj, "budget_ms")) {
        if (jsonget_int(obj, "search", "budget_ms", 0, PROBLEM_SEARCH_BUDGET_MAX, &s->budget_ms,
                        ld->err, ld->errlen) != 0)
            return -1;
        s->has_budget = true;
    }
    return 0;
}
