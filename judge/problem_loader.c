/*
 * problem_loader — the state of one load and the field checks that
 * problem.json's parts share (see problem_loader.h): how an error is
 * raised and noted, dimension expressions, scalar values, generator and
 * limits objects.
 */
#include "judge/problem_loader.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/jsonget.h"

/* ---- errors ----------------------------------------------------------- */

void problem_loader_init(struct problem_loader *ld, struct problem *p, char *first, size_t firstlen,
                         struct problem_errors *errors)
{
    memset(ld, 0, sizeof *ld);
    ld->p = p;
    ld->err = ld->msg;
    ld->errlen = sizeof ld->msg;
    ld->first = first;
    ld->firstlen = firstlen;
    ld->errors = errors;
    if (first && firstlen)
        first[0] = '\0';
}

int problem_loader_bad(struct problem_loader *ld, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(ld->err, ld->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* The field a message names: the path before its first ": " (a path has
 * no spaces), or the key of "missing 'key'" at the top level; "" if none. */
static char *error_field(const char *text)
{
    const char *colon = strstr(text, ": ");
    size_t n = colon ? (size_t)(colon - text) : 0;

    if (n && memchr(text, ' ', n))
        n = 0;
    if (!n && strncmp(text, "missing '", 9) == 0 && text[strlen(text) - 1] == '\'') {
        text += 9;
        n = strlen(text) - 1;
    }
    return strndup(text, n);
}

void problem_loader_note(struct problem_loader *ld)
{
    struct problem_errors *e = ld->errors;

    ld->failed = true;
    if (!ld->msg[0])
        return; /* the step noted its own errors */
    ld->n_noted++;
    if (ld->first && ld->firstlen && !ld->first[0])
        snprintf(ld->first, ld->firstlen, "%s", ld->msg);
    if (e && e->n < PROBLEM_MAX_ERRORS) {
        struct problem_error *x = &e->e[e->n];
        x->text = strdup(ld->msg);
        x->field = error_field(ld->msg);
        if (x->text && x->field) {
            e->n++;
        } else {
            free(x->text);
            free(x->field);
            x->text = x->field = NULL;
            e->n_more++;
        }
    } else if (e) {
        e->n_more++;
    }
    ld->msg[0] = '\0';
}

char *problem_loader_strdup(struct problem_loader *ld, const char *s)
{
    char *d = strdup(s);

    if (!d)
        problem_loader_bad(ld, "out of memory");
    return d;
}

/* ---- checks shared by the params and the cases ----------------------- */

/* Used with expr_foreach_name: remembers the first name that is not an
 * integer parameter. */
struct name_check {
    const struct problem *p;
    const char *unknown;
};

static void check_name(void *ctx, const char *name)
{
    struct name_check *nc = ctx;
    int i;

    if (nc->unknown)
        return;
    i = problem_find_param(nc->p, name);
    if (i < 0 || nc->p->params[i].kind != PARAM_INT)
        nc->unknown = name;
}

/* Parses an expression at path and checks that it only names dimensions. */
int problem_loader_dim_expr(struct problem_loader *ld, const char *text, const char *path,
                            struct expr **out)
{
    char msg[PROBLEM_ERR_LEN];
    struct name_check nc = {.p = ld->p};

    *out = expr_parse(text, msg, sizeof msg);
    if (!*out)
        return problem_loader_bad(ld, "%s: '%s': %s", path, text, msg);
    expr_foreach_name(*out, check_name, &nc);
    if (nc.unknown)
        return problem_loader_bad(ld, "%s: unknown dimension '%s'", path, nc.unknown);
    return 0;
}

/* The value of a scalar parameter pa: obj's member key (at path), a finite
 * number that the parameter's C type holds (a float value beyond FLT_MAX
 * would reach the function as inf). */
int problem_loader_scalar(struct problem_loader *ld, json_t *obj, const char *path, const char *key,
                          const struct param *pa, double *out)
{
    if (!json_object_get(obj, key))
        return jsonget_missing(path, key, ld->err, ld->errlen);
    if (jsonget_number(obj, path, key, out, ld->err, ld->errlen) != 0)
        return -1;
    if (!isfinite(*out) || (!pa->is_double && fabs(*out) > FLT_MAX))
        return problem_loader_bad(ld, "%s.%s: %g does not fit a %s", path, key, *out,
                                  problem_scalar_ctype(pa));
    return 0;
}

/* ---- generators ------------------------------------------------------- */

/* The numeric field of spec named key (one of the keys merge_gen allows). */
static double *gen_field(struct gen_spec *spec, const char *key)
{
    if (strcmp(key, "mean") == 0)
        return &spec->mean;
    if (strcmp(key, "std") == 0)
        return &spec->std;
    if (strcmp(key, "lo") == 0)
        return &spec->lo;
    if (strcmp(key, "hi") == 0)
        return &spec->hi;
    if (strcmp(key, "excess") == 0)
        return &spec->excess;
    return &spec->p;
}

/* Applies the fields of obj (at path) onto *spec: a field given overrides,
 * a missing one (dist included) keeps spec's. Fields must belong to the
 * resulting distribution, and the result must fit the tensor. */
static int merge_gen(struct problem_loader *ld, json_t *obj, const char *path,
                     const struct param *pa, struct gen_spec *spec)
{
    static const char *const keys_normal[] = {"dist", "mean", "std", NULL};
    static const char *const keys_range[] = {"dist", "lo", "hi", NULL};
    static const char *const keys_bernoulli[] = {"dist", "p", "keep_row_open", NULL};
    static const char *const keys_causal[] = {"dist", NULL};
    static const char *const keys_dominant[] = {"dist", "mean", "std", "at", "excess", NULL};
    static const char *const keys_one_open[] = {"dist", "at", NULL};
    const char *const *allowed = keys_causal;
    char fp[JSONGET_PATH_LEN], msg[PROBLEM_ERR_LEN];
    const char *dist, *key;
    json_t *v;

    if (!json_is_object(obj))
        return problem_loader_bad(ld, "%s: must be an object", path);
    if (jsonget_string(obj, path, "dist", false, &dist, ld->err, ld->errlen) != 0)
        return -1;
    if (dist && gen_dist_from_name(dist, &spec->dist) != 0)
        return problem_loader_bad(
            ld,
            "%s.dist: '%s' is not one of normal, uniform, bernoulli, int_uniform, "
            "causal, dominant, constant_rows, one_open",
            path, dist);
    switch (spec->dist) {
    case GEN_NORMAL:
    case GEN_CONSTANT_ROWS: allowed = keys_normal; break;
    case GEN_DOMINANT: allowed = keys_dominant; break;
    case GEN_ONE_OPEN: allowed = keys_one_open; break;
    case GEN_UNIFORM:
    case GEN_INT_UNIFORM: allowed = keys_range; break;
    case GEN_BERNOULLI: allowed = keys_bernoulli; break;
    case GEN_CAUSAL: allowed = keys_causal; break;
    }

    json_object_foreach(obj, key, v)
    {
        const char *const *a;

        for (a = allowed; *a; a++)
            if (strcmp(*a, key) == 0)
                break;
        jsonget_path_key(fp, path, key);
        if (!*a)
            return problem_loader_bad(ld, "%s: not a parameter of '%s'", fp,
                                      gen_dist_name(spec->dist));
        if (strcmp(key, "dist") == 0)
            continue;
        if (strcmp(key, "keep_row_open") == 0) {
            if (!json_is_boolean(v))
                return problem_loader_bad(ld, "%s: must be true or false", fp);
            spec->keep_row_open = json_is_true(v);
            continue;
        }
        if (strcmp(key, "at") == 0) {
            if (!json_is_string(v) || gen_at_from_name(json_string_value(v), &spec->at) != 0)
                return problem_loader_bad(ld,
                                          "%s: must be \"first\", \"last\", \"middle\" or "
                                          "\"random\"",
                                          fp);
            continue;
        }
        if (jsonget_number(obj, path, key, gen_field(spec, key), ld->err, ld->errlen) != 0)
            return -1;
    }
    if (gen_spec_check(spec, pa->dtype, pa->rank, msg, sizeof msg) != 0)
        return problem_loader_bad(ld, "%s: %s", path, msg);
    return 0;
}

/* A generators object ({tensor name: spec}) at path, merged onto gens[]. */
int problem_loader_generators(struct problem_loader *ld, json_t *obj, const char *path,
                              struct gen_spec gens[PROBLEM_MAX_PARAMS])
{
    const struct problem *p = ld->p;
    char fp[JSONGET_PATH_LEN];
    const char *name;
    json_t *v;

    if (!json_is_object(obj))
        return problem_loader_bad(ld, "%s: must be an object", path);
    json_object_foreach(obj, name, v)
    {
        int i = problem_find_param(p, name);

        jsonget_path_key(fp, path, name);
        if (i < 0 || !param_is_input(&p->params[i]))
            return problem_loader_bad(ld, "%s: '%s' is not an input (in or inout) tensor", fp,
                                      name);
        if (merge_gen(ld, v, fp, &p->params[i], &gens[i]) != 0)
            return -1;
    }
    return 0;
}

/* Merges a limits object (at path) onto *lim. */
int problem_loader_limits(struct problem_loader *ld, json_t *obj, const char *path,
                          struct problem_limits *lim)
{
    static const char *const keys[] = {"cpu_ms", "wall_ms", "memory_mb", NULL};

    if (!json_is_object(obj))
        return problem_loader_bad(ld, "%s: must be an object", path);
    if (jsonget_keys(obj, path, keys, ld->err, ld->errlen) != 0)
        return -1;
    if (json_object_get(obj, "cpu_ms") && jsonget_int(obj, path, "cpu_ms", 1, LIMIT_MAX_CPU_MS,
                                                      &lim->cpu_ms, ld->err, ld->errlen) != 0)
        return -1;
    if (json_object_get(obj, "wall_ms") && jsonget_int(obj, path, "wall_ms", 1, LIMIT_MAX_WALL_MS,
                                                       &lim->wall_ms, ld->err, ld->errlen) != 0)
        return -1;
    if (json_object_get(obj, "memory_mb") &&
        jsonget_int(obj, path, "memory_mb", 1, LIMIT_MAX_MEMORY_MB, &lim->memory_mb, ld->err,
                    ld->errlen) != 0)
        return -1;
    return 0;
}
