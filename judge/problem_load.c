/*
 * problem_load — problem.json, strictly (judge/problem_load.h).
 *
 * Theory of operation. problem_load_json() checks the parsed problem.json
 * against docs/problem-format.md and builds the struct problem in which
 * everything is resolved: shapes and constraints are parsed, every tensor
 * has its default generator, every test has its effective generators (the
 * test's fields merged onto the problem's) and limits, and every test's
 * dims satisfy the constraints and give positive shapes.
 *
 * Packages are uploaded by instructors over HTTP, so the validation is
 * strict: unknown keys, duplicate keys and wrong types are errors (a typo
 * such as "nulable" must not silently change a problem), and every message
 * names the offending field the way it is written in problem.json, e.g.
 * "params[3].shape[1]: unknown dimension 'Tk'". A check stops at the first
 * error inside one parameter, test, benchmark size or top-level field, and
 * goes on with the next one, so that one run reports every error; what
 * depends on the params (constraints, generators, tests, benchmark) is
 * skipped when they failed, since every one of its names would be an
 * error of its own.
 */
#include "judge/problem_load.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/dims.h"
#include "judge/jsonget.h"
#include "judge/names.h"
#include "util/isotime.h"

#define PROBLEM_MAX_CONSTRAINTS 64
#define PROBLEM_MAX_TAGS 64

static const struct problem_limits default_limits = {
    .cpu_ms = 2000, .wall_ms = 6000, .memory_mb = 256};

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

/* ---- small helpers ---------------------------------------------------- */

/* The default generator of a tensor of dtype t (docs/problem-format.md).
 * Every field is set, so that a test switching the distribution finds the
 * documented defaults of the new one. */
static struct gen_spec default_gen(enum tensor_dtype t)
{
    struct gen_spec g = {.dist = GEN_NORMAL, .mean = 0, .std = 1, .lo = -1, .hi = 1, .p = 0.5};

    if (t == DT_U8) {
        g.dist = GEN_BERNOULLI;
    } else if (t == DT_I32) {
        g.dist = GEN_INT_UNIFORM;
        g.lo = -100;
        g.hi = 100;
    }
    return g;
}

/* ---- params ----------------------------------------------------------- */

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

/* Pass 1 for params[i]: its name, type and kind. */
static int load_param_head(struct problem_loader *ld, json_t *jp, size_t i)
{
    static const char *const int_keys[] = {"name", "type", NULL};
    static const char *const scalar_keys[] = {"name", "type", "value", NULL};
    static const char *const tensor_keys[] = {"name", "type", "role", "shape", "nullable", NULL};
    struct problem *p = ld->p;
    struct param *pa = &p->params[i];
    char path[JSONGET_PATH_LEN];
    const char *name, *type, *why;

    jsonget_path_index(path, "params", i);
    if (!json_is_object(jp))
        return problem_loader_bad(ld, "%s: must be an object", path);
    if (jsonget_string(jp, path, "name", true, &name, ld->err, ld->errlen) != 0 ||
        jsonget_string(jp, path, "type", true, &type, ld->err, ld->errlen) != 0)
        return -1;
    if ((why = names_c_identifier_error(name)) != NULL)
        return problem_loader_bad(ld, "%s.name: '%s' %s", path, name, why);
    if (problem_find_param(p, name) >= 0)
        return problem_loader_bad(ld, "%s.name: duplicate parameter '%s'", path, name);
    if (strcmp(type, "int") == 0) {
        pa->kind = PARAM_INT;
        pa->dim_index = p->n_dims++;
        if (jsonget_keys(jp, path, int_keys, ld->err, ld->errlen) != 0)
            return -1;
    } else if (strcmp(type, "float") == 0 || strcmp(type, "double") == 0) {
        pa->kind = PARAM_FLOAT;
        pa->is_double = type[0] == 'd';
        pa->dim_index = -1;
        if (jsonget_keys(jp, path, scalar_keys, ld->err, ld->errlen) != 0 ||
            problem_loader_scalar(ld, jp, path, "value", pa, &pa->value) != 0)
            return -1;
    } else if (tensor_dtype_from_name(type, &pa->dtype) == 0) {
        pa->kind = PARAM_TENSOR;
        pa->dim_index = -1;
        if (jsonget_keys(jp, path, tensor_keys, ld->err, ld->errlen) != 0)
            return -1;
    } else {
        return problem_loader_bad(
            ld, "%s.type: '%s' is not one of f32, u8, i32, int, float, double", path, type);
    }
    return (pa->name = problem_loader_strdup(ld, name)) ? 0 : -1;
}

/* Pass 1: names, types and kinds, so that shapes can name dimensions that
 * come later in the signature. Each parameter is checked on its own. */
static int load_param_heads(struct problem_loader *ld, json_t *params)
{
    size_t i;
    json_t *jp;
    int rc = 0;

    if (!json_is_array(params) || json_array_size(params) == 0)
        return problem_loader_bad(ld, "params: must be a non-empty array");
    if (json_array_size(params) > PROBLEM_MAX_PARAMS)
        return problem_loader_bad(ld, "params: more than %d parameters", PROBLEM_MAX_PARAMS);

    json_array_foreach(params, i, jp)
    {
        if (load_param_head(ld, jp, i) != 0) {
            problem_loader_note(ld);
            rc = -1;
        }
        ld->p->n_params = (int)i + 1;
    }
    return rc;
}

/* Pass 2: the tensors' role, nullability and shape. */
static int load_tensor(struct problem_loader *ld, json_t *jp, int i)
{
    struct param *pa = &ld->p->params[i];
    char path[JSONGET_PATH_LEN], fp[JSONGET_PATH_LEN];
    const char *role;
    json_t *shape, *nullable, *dim;
    size_t k;

    jsonget_path_index(path, "params", (size_t)i);
    if (jsonget_string(jp, path, "role", true, &role, ld->err, ld->errlen) != 0)
        return -1;
    if (strcmp(role, "in") == 0)
        pa->role = ROLE_IN;
    else if (strcmp(role, "out") == 0)
        pa->role = ROLE_OUT;
    else if (strcmp(role, "inout") == 0)
        pa->role = ROLE_INOUT;
    else
        return problem_loader_bad(ld, "%s.role: '%s' is not 'in', 'out' or 'inout'", path, role);

    nullable = json_object_get(jp, "nullable");
    if (nullable && !json_is_boolean(nullable))
        return problem_loader_bad(ld, "%s.nullable: must be true or false", path);
    pa->nullable = json_is_true(nullable);
    /* The harness fills outputs and compares them: there is nothing to
     * compare in a NULL output. */
    if (pa->nullable && param_is_output(pa))
        return problem_loader_bad(ld, "%s.nullable: an %s tensor cannot be nullable", path,
                                  problem_role_name(pa->role));

    shape = json_object_get(jp, "shape");
    if (!shape)
        return jsonget_missing(path, "shape", ld->err, ld->errlen);
    if (!json_is_array(shape) || json_array_size(shape) == 0 ||
        json_array_size(shape) > TENSOR_MAX_RANK)
        return problem_loader_bad(ld, "%s.shape: must be an array of 1 to %d dimension expressions",
                                  path, TENSOR_MAX_RANK);
    json_array_foreach(shape, k, dim)
    {
        char num[32];
        const char *text;

        jsonget_path(fp, "%s.shape[%zu]", path, k);
        /* A literal extent may be written as a JSON integer. */
        if (json_is_integer(dim)) {
            snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(dim));
            text = num;
        } else if (json_is_string(dim)) {
            text = json_string_value(dim);
        } else {
            return problem_loader_bad(ld, "%s: must be a string (a dimension expression)", fp);
        }
        pa->shape_text[k] = problem_loader_strdup(ld, text);
        if (!pa->shape_text[k])
            return -1;
        pa->rank = (int)k + 1;
        if (problem_loader_dim_expr(ld, text, fp, &pa->shape[k]) != 0)
            return -1;
    }
    pa->gen = default_gen(pa->dtype);
    return 0;
}

static int load_params(struct problem_loader *ld, json_t *params)
{
    struct problem *p = ld->p;
    bool have_out = false;

    int rc = 0;

    if (load_param_heads(ld, params) != 0)
        return -1;
    for (int i = 0; i < p->n_params; i++) {
        if (p->params[i].kind != PARAM_TENSOR)
            continue;
        if (load_tensor(ld, json_array_get(params, (size_t)i), i) != 0) {
            problem_loader_note(ld);
            rc = -1;
        }
        have_out = have_out || param_is_output(&p->params[i]);
    }
    if (rc != 0)
        return -1;
    if (!have_out)
        return problem_loader_bad(ld,
                                  "params: at least one tensor must have role 'out' or 'inout'");
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
            "causal",
            path, dist);
    switch (spec->dist) {
    case GEN_NORMAL: allowed = keys_normal; break;
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

/* ---- tolerance and limits --------------------------------------------- */

static int load_tolerance(struct problem_loader *ld, json_t *obj)
{
    static const char *const keys[] = {"atol", "rtol", "atol_relative_to_max", NULL};
    struct compare_tolerance *t = &ld->p->tol;
    json_t *rel;

    if (!obj)
        return jsonget_missing("", "tolerance", ld->err, ld->errlen);
    if (!json_is_object(obj))
        return problem_loader_bad(ld, "tolerance: must be an object");
    if (jsonget_keys(obj, "tolerance", keys, ld->err, ld->errlen) != 0)
        return -1;
    if (!json_object_get(obj, "atol"))
        return jsonget_missing("tolerance", "atol", ld->err, ld->errlen);
    if (!json_object_get(obj, "rtol"))
        return jsonget_missing("tolerance", "rtol", ld->err, ld->errlen);
    if (jsonget_number(obj, "tolerance", "atol", &t->atol, ld->err, ld->errlen) != 0 ||
        jsonget_number(obj, "tolerance", "rtol", &t->rtol, ld->err, ld->errlen) != 0)
        return -1;
    if (!(t->atol >= 0 && t->atol < 1e300))
        return problem_loader_bad(ld, "tolerance.atol: must be a number >= 0");
    if (!(t->rtol >= 0 && t->rtol < 1e300))
        return problem_loader_bad(ld, "tolerance.rtol: must be a number >= 0");
    rel = json_object_get(obj, "atol_relative_to_max");
    if (rel && !json_is_boolean(rel))
        return problem_loader_bad(ld, "tolerance.atol_relative_to_max: must be true or false");
    t->atol_relative_to_max = json_is_true(rel);
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

/* ---- constraints ------------------------------------------------------- */

static int load_constraints(struct problem_loader *ld, json_t *arr)
{
    struct problem *p = ld->p;
    char path[JSONGET_PATH_LEN];
    size_t i;
    json_t *v;

    if (!arr)
        return 0;
    if (!json_is_array(arr))
        return problem_loader_bad(ld, "constraints: must be an array of expressions");
    if (json_array_size(arr) > PROBLEM_MAX_CONSTRAINTS)
        return problem_loader_bad(ld, "constraints: more than %d entries", PROBLEM_MAX_CONSTRAINTS);
    p->constraints = calloc(json_array_size(arr) + 1, sizeof *p->constraints);
    p->constraint_text = calloc(json_array_size(arr) + 1, sizeof *p->constraint_text);
    if (!p->constraints || !p->constraint_text)
        return problem_loader_bad(ld, "out of memory");
    json_array_foreach(arr, i, v)
    {
        jsonget_path_index(path, "constraints", i);
        if (!json_is_string(v))
            return problem_loader_bad(ld, "%s: must be a string", path);
        p->constraint_text[i] = problem_loader_strdup(ld, json_string_value(v));
        if (!p->constraint_text[i])
            return -1;
        p->n_constraints = i + 1;
        if (problem_loader_dim_expr(ld, p->constraint_text[i], path, &p->constraints[i]) != 0)
            return -1;
    }
    return 0;
}

/* ---- the package's identity ----------------------------------------- */

/* The last component of dir, ignoring trailing slashes; "." and ".." are
 * resolved so that `problem check .` works inside the package. */
static char *dir_basename(const char *dir)
{
    char *copy = NULL, *real = NULL, *base, *res = NULL;
    size_t n;

    copy = strdup(dir);
    if (!copy)
        goto out;
    n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = '\0';
    base = strrchr(copy, '/');
    base = base ? base + 1 : copy;
    if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || *base == '\0') {
        real = realpath(dir, NULL);
        if (!real)
            goto out;
        base = strrchr(real, '/');
        base = base ? base + 1 : real;
    }
    res = strdup(base);
out:
    free(copy);
    free(real);
    return res;
}

static int load_slug(struct problem_loader *ld, json_t *root, const char *dir)
{
    const char *slug;
    char *base;
    int rc;

    if (jsonget_string(root, "", "slug", true, &slug, ld->err, ld->errlen) != 0)
        return -1;
    if (!names_slug_valid(slug))
        return problem_loader_bad(ld, "slug: '%s' must match [a-z0-9][a-z0-9-]{0,62}", slug);
    base = dir_basename(dir);
    if (!base)
        return problem_loader_bad(ld, "%s: cannot resolve the directory name: %s", dir,
                                  strerror(errno));
    rc = strcmp(base, slug);
    if (rc != 0)
        problem_loader_bad(ld, "slug: '%s' does not match the directory name '%s'", slug, base);
    free(base);
    if (rc != 0)
        return -1;
    return (ld->p->slug = problem_loader_strdup(ld, slug)) ? 0 : -1;
}

static int load_title(struct problem_loader *ld, json_t *root)
{
    const char *title;

    if (jsonget_string(root, "", "title", true, &title, ld->err, ld->errlen) != 0)
        return -1;
    if (*title == '\0')
        return problem_loader_bad(ld, "title: must not be empty");
    return (ld->p->title = problem_loader_strdup(ld, title)) ? 0 : -1;
}

static int load_difficulty(struct problem_loader *ld, json_t *root)
{
    const char *difficulty;

    if (jsonget_string(root, "", "difficulty", true, &difficulty, ld->err, ld->errlen) != 0)
        return -1;
    if (strcmp(difficulty, "easy") != 0 && strcmp(difficulty, "medium") != 0 &&
        strcmp(difficulty, "hard") != 0)
        return problem_loader_bad(ld, "difficulty: '%s' is not easy, medium or hard", difficulty);
    return (ld->p->difficulty = problem_loader_strdup(ld, difficulty)) ? 0 : -1;
}

static int load_function(struct problem_loader *ld, json_t *root)
{
    const char *function, *why;

    if (jsonget_string(root, "", "function", true, &function, ld->err, ld->errlen) != 0)
        return -1;
    if ((why = names_c_identifier_error(function)) != NULL)
        return problem_loader_bad(ld, "function: '%s' %s", function, why);
    return (ld->p->function = problem_loader_strdup(ld, function)) ? 0 : -1;
}

/* The problem-wide "generators", merged onto the tensors' defaults. */
static int load_problem_generators(struct problem_loader *ld, json_t *v)
{
    struct problem *p = ld->p;
    struct gen_spec gens[PROBLEM_MAX_PARAMS];

    if (!v)
        return 0;
    for (int i = 0; i < p->n_params; i++)
        gens[i] = p->params[i].gen;
    if (problem_loader_generators(ld, v, "generators", gens) != 0)
        return -1;
    for (int i = 0; i < p->n_params; i++)
        p->params[i].gen = gens[i];
    return 0;
}

static int load_run_all_tests(struct problem_loader *ld, json_t *v)
{
    if (!v)
        return 0;
    if (!json_is_boolean(v))
        return problem_loader_bad(ld, "run_all_tests: must be true or false");
    ld->p->run_all_tests = json_is_true(v);
    return 0;
}

static int load_walkthrough_opens_at(struct problem_loader *ld, json_t *v)
{
    if (v && (!json_is_string(v) ||
              isotime_parse(json_string_value(v), &ld->p->walkthrough_opens_at) != 0))
        return problem_loader_bad(ld,
                                  "walkthrough_opens_at: must be a date-time with a time zone, "
                                  "e.g. \"2025-03-01T09:00:00Z\" or \"2025-03-01T10:00:00+01:00\"");
    return 0;
}

/* Runs one step of problem_load_json, noting its failure. */
static bool step(struct problem_loader *ld, int rc)
{
    if (rc != 0)
        problem_loader_note(ld);
    return rc == 0;
}

int problem_load_json(struct problem_loader *ld, json_t *root, const char *dir)
{
    static const char *const keys[] = {
        "slug",      "title",  "difficulty",    "tags",       "prerequisites",
        "function",  "params", "constraints",   "generators", "tolerance",
        "limits",    "tests",  "run_all_tests", "mistakes",   "walkthrough_opens_at",
        "benchmark", NULL};
    struct problem *p = ld->p;
    json_t *v;

    if (!json_is_object(root)) {
        step(ld, problem_loader_bad(ld, "problem.json: must be a JSON object"));
        return -1;
    }
    step(ld, jsonget_keys(root, "", keys, ld->err, ld->errlen));
    step(ld, load_slug(ld, root, dir));
    step(ld, load_title(ld, root));
    step(ld, load_difficulty(ld, root));
    step(ld, jsonget_strings(root, "tags", PROBLEM_MAX_TAGS, NULL, NULL, &p->tags, &p->n_tags,
                             ld->err, ld->errlen));
    step(ld, jsonget_strings(root, "prerequisites", PROBLEM_MAX_TAGS, names_slug_valid,
                             "a valid slug", &p->prereqs, &p->n_prereqs, ld->err, ld->errlen));
    step(ld, load_function(ld, root));

    /* everything below that names a parameter needs all of them */
    bool params_ok = (v = json_object_get(root, "params"))
                         ? step(ld, load_params(ld, v))
                         : step(ld, jsonget_missing("", "params", ld->err, ld->errlen));
    if (params_ok) {
        step(ld, load_constraints(ld, json_object_get(root, "constraints")));
        step(ld, load_problem_generators(ld, json_object_get(root, "generators")));
    }
    step(ld, load_tolerance(ld, json_object_get(root, "tolerance")));
    p->limits = default_limits;
    if ((v = json_object_get(root, "limits")) != NULL)
        step(ld, problem_loader_limits(ld, v, "limits", &p->limits));
    step(ld, load_run_all_tests(ld, json_object_get(root, "run_all_tests")));
    step(ld, load_walkthrough_opens_at(ld, json_object_get(root, "walkthrough_opens_at")));
    if (params_ok) {
        step(ld, problem_load_tests(ld, json_object_get(root, "tests")));
        step(ld, problem_load_benchmark(ld, json_object_get(root, "benchmark")));
    }
    return ld->failed ? -1 : 0;
}
