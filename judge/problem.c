/*
 * problem — loading and validating a problem package.
 *
 * Theory of operation. problem_load() reads problems/<slug>/problem.json,
 * statement.md and starter.c (each at most PROBLEM_MAX_FILE bytes), the
 * optional hints/N.md and walkthrough.md (texts the server shows, never
 * the judge), checks the JSON against docs/problem-format.md and builds a
 * struct problem in which everything is resolved: shapes and constraints
 * are parsed, every tensor has its default generator, every test has its
 * effective generators (the test's fields merged onto the problem's) and
 * limits, and every test's dims satisfy the constraints and give positive
 * shapes. The judge and the
 * server then use the struct without re-checking anything.
 *
 * Packages are uploaded by instructors over HTTP, so the validation is
 * strict: unknown keys, duplicate keys and wrong types are errors (a typo
 * such as "nulable" must not silently change a problem), and every message
 * names the offending field the way it is written in problem.json, e.g.
 * "params[3].shape[1]: unknown dimension 'Tk'". Nothing here runs package
 * code; the reference is only located.
 *
 * The struct is immutable after loading and may be shared between threads.
 */
#include "judge/problem.h"

#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include <jansson.h>

#include "judge/dims.h"
#include "judge/errbuf.h"
#include "judge/jsonget.h"
#include "judge/names.h"
#include "util/fs.h"
#include "util/isotime.h"

#define PROBLEM_MAX_TESTS 1000
#define PROBLEM_MAX_CONSTRAINTS 64
#define PROBLEM_MAX_TAGS 64
#define PROBLEM_MAX_WEIGHT 1000

/* Upper bounds of limits: sanity, not policy. */
#define LIMIT_MAX_CPU_MS 600000
#define LIMIT_MAX_WALL_MS 1200000
#define LIMIT_MAX_MEMORY_MB 65536

static const struct problem_limits default_limits = {
    .cpu_ms = 2000, .wall_ms = 6000, .memory_mb = 256};

/* State of one problem_load(): the problem being built and the error sink. */
struct loader {
    struct problem *p;
    char *err;
    size_t errlen;
};

/* Always returns -1, so that validation code can "return bad(...)". */
static int bad(struct loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct loader *ld, const char *fmt, ...)
{
    va_list ap;

    if (ld->err && ld->errlen) {
        va_start(ap, fmt);
        vsnprintf(ld->err, ld->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
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

/* Reads a package file of at most max bytes into a new NUL-terminated
 * buffer; flags are added to open()'s (O_NOFOLLOW). Refuses non-regular
 * files (a FIFO would block the server) and NUL bytes (the contents are
 * used as C strings). */
static char *read_text_file(const char *path, const char *label, int flags, size_t max,
                            size_t *len_out, struct loader *ld)
{
    char *buf = NULL;
    size_t len = 0;

    if (fs_read_file(path, flags, max, &buf, &len) != 0) {
        if (errno == ENOENT)
            bad(ld, "%s: missing", label);
        else if (errno == EINVAL || errno == ELOOP)
            bad(ld, "%s: not a regular file", label);
        else if (errno == EFBIG)
            bad(ld, "%s: larger than %zu bytes", label, max);
        else
            bad(ld, "%s: %s", label, strerror(errno));
        return NULL;
    }
    if (memchr(buf, '\0', len)) {
        bad(ld, "%s: contains a NUL byte", label);
        free(buf);
        return NULL;
    }
    if (len_out)
        *len_out = len;
    return buf;
}

static char *dup_or_oom(struct loader *ld, const char *s)
{
    char *d = strdup(s);

    if (!d)
        bad(ld, "out of memory");
    return d;
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
static int parse_dim_expr(struct loader *ld, const char *text, const char *path, struct expr **out)
{
    char msg[PROBLEM_ERR_LEN];
    struct name_check nc = {.p = ld->p};

    *out = expr_parse(text, msg, sizeof msg);
    if (!*out)
        return bad(ld, "%s: '%s': %s", path, text, msg);
    expr_foreach_name(*out, check_name, &nc);
    if (nc.unknown)
        return bad(ld, "%s: unknown dimension '%s'", path, nc.unknown);
    return 0;
}

/* The value of a scalar parameter pa: obj's member key (at path), a finite
 * number that the parameter's C type holds (a float value beyond FLT_MAX
 * would reach the function as inf). */
static int load_scalar_value(struct loader *ld, json_t *obj, const char *path, const char *key,
                             const struct param *pa, double *out)
{
    if (!json_object_get(obj, key))
        return jsonget_missing(path, key, ld->err, ld->errlen);
    if (jsonget_number(obj, path, key, out, ld->err, ld->errlen) != 0)
        return -1;
    if (!isfinite(*out) || (!pa->is_double && fabs(*out) > FLT_MAX))
        return bad(ld, "%s.%s: %g does not fit a %s", path, key, *out, problem_scalar_ctype(pa));
    return 0;
}

/* Pass 1: names, types and kinds, so that shapes can name dimensions that
 * come later in the signature. */
static int load_param_heads(struct loader *ld, json_t *params)
{
    static const char *const int_keys[] = {"name", "type", NULL};
    static const char *const scalar_keys[] = {"name", "type", "value", NULL};
    static const char *const tensor_keys[] = {"name", "type", "role", "shape", "nullable", NULL};
    struct problem *p = ld->p;
    char path[JSONGET_PATH_LEN];
    const char *name, *type, *why;
    size_t i;
    json_t *jp;

    if (!json_is_array(params) || json_array_size(params) == 0)
        return bad(ld, "params: must be a non-empty array");
    if (json_array_size(params) > PROBLEM_MAX_PARAMS)
        return bad(ld, "params: more than %d parameters", PROBLEM_MAX_PARAMS);

    json_array_foreach(params, i, jp)
    {
        struct param *pa = &p->params[i];

        jsonget_path_index(path, "params", i);
        if (!json_is_object(jp))
            return bad(ld, "%s: must be an object", path);
        if (jsonget_string(jp, path, "name", true, &name, ld->err, ld->errlen) != 0 ||
            jsonget_string(jp, path, "type", true, &type, ld->err, ld->errlen) != 0)
            return -1;
        if ((why = names_c_identifier_error(name)) != NULL)
            return bad(ld, "%s.name: '%s' %s", path, name, why);
        if (problem_find_param(p, name) >= 0)
            return bad(ld, "%s.name: duplicate parameter '%s'", path, name);
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
                load_scalar_value(ld, jp, path, "value", pa, &pa->value) != 0)
                return -1;
        } else if (tensor_dtype_from_name(type, &pa->dtype) == 0) {
            pa->kind = PARAM_TENSOR;
            pa->dim_index = -1;
            if (jsonget_keys(jp, path, tensor_keys, ld->err, ld->errlen) != 0)
                return -1;
        } else {
            return bad(ld, "%s.type: '%s' is not one of f32, u8, i32, int, float, double", path,
                       type);
        }
        pa->name = dup_or_oom(ld, name);
        if (!pa->name)
            return -1;
        p->n_params = (int)i + 1;
    }
    return 0;
}

/* Pass 2: the tensors' role, nullability and shape. */
static int load_tensor(struct loader *ld, json_t *jp, int i)
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
        return bad(ld, "%s.role: '%s' is not 'in', 'out' or 'inout'", path, role);

    nullable = json_object_get(jp, "nullable");
    if (nullable && !json_is_boolean(nullable))
        return bad(ld, "%s.nullable: must be true or false", path);
    pa->nullable = json_is_true(nullable);
    /* The harness fills outputs and compares them: there is nothing to
     * compare in a NULL output. */
    if (pa->nullable && param_is_output(pa))
        return bad(ld, "%s.nullable: an %s tensor cannot be nullable", path,
                   problem_role_name(pa->role));

    shape = json_object_get(jp, "shape");
    if (!shape)
        return jsonget_missing(path, "shape", ld->err, ld->errlen);
    if (!json_is_array(shape) || json_array_size(shape) == 0 ||
        json_array_size(shape) > TENSOR_MAX_RANK)
        return bad(ld, "%s.shape: must be an array of 1 to %d dimension expressions", path,
                   TENSOR_MAX_RANK);
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
            return bad(ld, "%s: must be a string (a dimension expression)", fp);
        }
        pa->shape_text[k] = dup_or_oom(ld, text);
        if (!pa->shape_text[k])
            return -1;
        pa->rank = (int)k + 1;
        if (parse_dim_expr(ld, text, fp, &pa->shape[k]) != 0)
            return -1;
    }
    pa->gen = default_gen(pa->dtype);
    return 0;
}

static int load_params(struct loader *ld, json_t *params)
{
    struct problem *p = ld->p;
    bool have_out = false;

    if (load_param_heads(ld, params) != 0)
        return -1;
    for (int i = 0; i < p->n_params; i++) {
        if (p->params[i].kind != PARAM_TENSOR)
            continue;
        if (load_tensor(ld, json_array_get(params, (size_t)i), i) != 0)
            return -1;
        have_out = have_out || param_is_output(&p->params[i]);
    }
    if (!have_out)
        return bad(ld, "params: at least one tensor must have role 'out' or 'inout'");
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
static int merge_gen(struct loader *ld, json_t *obj, const char *path, const struct param *pa,
                     struct gen_spec *spec)
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
        return bad(ld, "%s: must be an object", path);
    if (jsonget_string(obj, path, "dist", false, &dist, ld->err, ld->errlen) != 0)
        return -1;
    if (dist && gen_dist_from_name(dist, &spec->dist) != 0)
        return bad(ld,
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
            return bad(ld, "%s: not a parameter of '%s'", fp, gen_dist_name(spec->dist));
        if (strcmp(key, "dist") == 0)
            continue;
        if (strcmp(key, "keep_row_open") == 0) {
            if (!json_is_boolean(v))
                return bad(ld, "%s: must be true or false", fp);
            spec->keep_row_open = json_is_true(v);
            continue;
        }
        if (jsonget_number(obj, path, key, gen_field(spec, key), ld->err, ld->errlen) != 0)
            return -1;
    }
    if (gen_spec_check(spec, pa->dtype, pa->rank, msg, sizeof msg) != 0)
        return bad(ld, "%s: %s", path, msg);
    return 0;
}

/* A generators object ({tensor name: spec}) at path, merged onto gens[]. */
static int load_generators(struct loader *ld, json_t *obj, const char *path,
                           struct gen_spec gens[PROBLEM_MAX_PARAMS])
{
    const struct problem *p = ld->p;
    char fp[JSONGET_PATH_LEN];
    const char *name;
    json_t *v;

    if (!json_is_object(obj))
        return bad(ld, "%s: must be an object", path);
    json_object_foreach(obj, name, v)
    {
        int i = problem_find_param(p, name);

        jsonget_path_key(fp, path, name);
        if (i < 0 || !param_is_input(&p->params[i]))
            return bad(ld, "%s: '%s' is not an input (in or inout) tensor", fp, name);
        if (merge_gen(ld, v, fp, &p->params[i], &gens[i]) != 0)
            return -1;
    }
    return 0;
}

/* ---- tolerance and limits --------------------------------------------- */

static int load_tolerance(struct loader *ld, json_t *obj)
{
    static const char *const keys[] = {"atol", "rtol", "atol_relative_to_max", NULL};
    struct compare_tolerance *t = &ld->p->tol;
    json_t *rel;

    if (!obj)
        return jsonget_missing("", "tolerance", ld->err, ld->errlen);
    if (!json_is_object(obj))
        return bad(ld, "tolerance: must be an object");
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
        return bad(ld, "tolerance.atol: must be a number >= 0");
    if (!(t->rtol >= 0 && t->rtol < 1e300))
        return bad(ld, "tolerance.rtol: must be a number >= 0");
    rel = json_object_get(obj, "atol_relative_to_max");
    if (rel && !json_is_boolean(rel))
        return bad(ld, "tolerance.atol_relative_to_max: must be true or false");
    t->atol_relative_to_max = json_is_true(rel);
    return 0;
}

/* Merges a limits object (at path) onto *lim. */
static int load_limits(struct loader *ld, json_t *obj, const char *path, struct problem_limits *lim)
{
    static const char *const keys[] = {"cpu_ms", "wall_ms", "memory_mb", NULL};

    if (!json_is_object(obj))
        return bad(ld, "%s: must be an object", path);
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

/* ---- constraints and tests -------------------------------------------- */

static int load_constraints(struct loader *ld, json_t *arr)
{
    struct problem *p = ld->p;
    char path[JSONGET_PATH_LEN];
    size_t i;
    json_t *v;

    if (!arr)
        return 0;
    if (!json_is_array(arr))
        return bad(ld, "constraints: must be an array of expressions");
    if (json_array_size(arr) > PROBLEM_MAX_CONSTRAINTS)
        return bad(ld, "constraints: more than %d entries", PROBLEM_MAX_CONSTRAINTS);
    p->constraints = calloc(json_array_size(arr) + 1, sizeof *p->constraints);
    p->constraint_text = calloc(json_array_size(arr) + 1, sizeof *p->constraint_text);
    if (!p->constraints || !p->constraint_text)
        return bad(ld, "out of memory");
    json_array_foreach(arr, i, v)
    {
        jsonget_path_index(path, "constraints", i);
        if (!json_is_string(v))
            return bad(ld, "%s: must be a string", path);
        p->constraint_text[i] = dup_or_oom(ld, json_string_value(v));
        if (!p->constraint_text[i])
            return -1;
        p->n_constraints = i + 1;
        if (parse_dim_expr(ld, p->constraint_text[i], path, &p->constraints[i]) != 0)
            return -1;
    }
    return 0;
}

static int load_test_dims(struct loader *ld, json_t *jt, const char *path, struct test_case *t)
{
    const struct problem *p = ld->p;
    char fp[JSONGET_PATH_LEN];
    const char *key;
    json_t *dims, *v;

    jsonget_path_key(fp, path, "dims");
    dims = json_object_get(jt, "dims");
    if (!dims)
        return jsonget_missing(path, "dims", ld->err, ld->errlen);
    if (!json_is_object(dims))
        return bad(ld, "%s: must be an object", fp);
    json_object_foreach(dims, key, v)
    {
        int i = problem_find_param(p, key);

        if (i < 0 || p->params[i].kind != PARAM_INT)
            return bad(ld, "%s: unknown dimension '%s'", fp, key);
    }
    for (int i = 0; i < p->n_params; i++) {
        const struct param *pa = &p->params[i];
        int64_t value;

        if (pa->kind != PARAM_INT)
            continue;
        if (!json_object_get(dims, pa->name))
            return bad(ld, "%s: missing '%s'", fp, pa->name);
        if (jsonget_int(dims, fp, pa->name, INT_MIN, INT_MAX, &value, ld->err, ld->errlen) != 0)
            return -1;
        t->dims[pa->dim_index] = value;
    }
    return 0;
}

/* A test's "scalars": values for some float parameters; the others keep
 * the value their parameter declares. */
static int load_test_scalars(struct loader *ld, json_t *jt, const char *path, struct test_case *t)
{
    const struct problem *p = ld->p;
    char fp[JSONGET_PATH_LEN];
    const char *key;
    json_t *obj = json_object_get(jt, "scalars"), *v;

    for (int i = 0; i < p->n_params; i++)
        t->scalars[i] = p->params[i].value;
    if (!obj)
        return 0;
    jsonget_path_key(fp, path, "scalars");
    if (!json_is_object(obj))
        return bad(ld, "%s: must be an object", fp);
    json_object_foreach(obj, key, v)
    {
        int i = problem_find_param(p, key);

        if (i < 0 || p->params[i].kind != PARAM_FLOAT)
            return bad(ld, "%s: '%s' is not a float or double parameter", fp, key);
        if (load_scalar_value(ld, obj, fp, key, &p->params[i], &t->scalars[i]) != 0)
            return -1;
    }
    return 0;
}

static int load_test_null(struct loader *ld, json_t *jt, const char *path, struct test_case *t)
{
    const struct problem *p = ld->p;
    json_t *arr = json_object_get(jt, "null"), *v;
    char fp[JSONGET_PATH_LEN];
    size_t k;

    if (!arr)
        return 0;
    jsonget_path_key(fp, path, "null");
    if (!json_is_array(arr))
        return bad(ld, "%s: must be an array of tensor names", fp);
    json_array_foreach(arr, k, v)
    {
        int i;

        if (!json_is_string(v))
            return bad(ld, "%s[%zu]: must be a string", fp, k);
        i = problem_find_param(p, json_string_value(v));
        if (i < 0 || p->params[i].kind != PARAM_TENSOR)
            return bad(ld, "%s[%zu]: '%s' is not a tensor parameter", fp, k, json_string_value(v));
        if (!p->params[i].nullable)
            return bad(ld, "%s[%zu]: '%s' is not nullable", fp, k, p->params[i].name);
        if (t->is_null[i])
            return bad(ld, "%s[%zu]: '%s' listed twice", fp, k, p->params[i].name);
        t->is_null[i] = true;
    }
    return 0;
}

/* What a test and a benchmark size share: name (unique among cases[0..idx)),
 * dims, null tensors, scalars, generator overrides and limits (defaulting
 * to *limits). */
static int load_case(struct loader *ld, json_t *jt, const char *path, struct test_case *cases,
                     size_t idx, const char *array, const char *what,
                     const struct problem_limits *limits)
{
    struct problem *p = ld->p;
    struct test_case *t = &cases[idx];
    char msg[PROBLEM_ERR_LEN];
    const char *name;
    json_t *v;

    if (jsonget_string(jt, path, "name", true, &name, ld->err, ld->errlen) != 0)
        return -1;
    if (!names_test_valid(name))
        return bad(ld, "%s.name: '%s' must match [a-z0-9][a-z0-9_-]* (at most %d characters)", path,
                   name, NAMES_MAX_LEN);
    for (size_t k = 0; k < idx; k++)
        if (strcmp(cases[k].name, name) == 0)
            return bad(ld, "%s.name: duplicate %s name '%s' (also %s[%zu])", path, what, name,
                       array, k);
    t->name = dup_or_oom(ld, name);
    if (!t->name)
        return -1;

    t->dims = calloc((size_t)p->n_dims + 1, sizeof *t->dims);
    if (!t->dims)
        return bad(ld, "out of memory");
    if (load_test_dims(ld, jt, path, t) != 0 || load_test_null(ld, jt, path, t) != 0 ||
        load_test_scalars(ld, jt, path, t) != 0)
        return -1;

    for (int i = 0; i < p->n_params; i++)
        t->gen[i] = p->params[i].gen;
    if ((v = json_object_get(jt, "generators")) != NULL) {
        char fp[JSONGET_PATH_LEN];

        jsonget_path_key(fp, path, "generators");
        if (load_generators(ld, v, fp, t->gen) != 0)
            return -1;
    }

    t->limits = *limits;
    if ((v = json_object_get(jt, "limits")) != NULL) {
        char fp[JSONGET_PATH_LEN];

        jsonget_path_key(fp, path, "limits");
        if (load_limits(ld, v, fp, &t->limits) != 0)
            return -1;
    }

    if (dims_check(p, t->dims, msg, sizeof msg) != 0)
        return bad(ld, "%s: %s", path, msg);
    return 0;
}

static int load_test(struct loader *ld, json_t *jt, size_t idx)
{
    static const char *const keys[] = {"name",       "kind", "seed",   "dims",    "weight",
                                       "generators", "null", "limits", "scalars", NULL};
    struct problem *p = ld->p;
    struct test_case *t = &p->tests[idx];
    char path[JSONGET_PATH_LEN];
    const char *kind;
    json_t *v;
    int64_t n;

    jsonget_path_index(path, "tests", idx);
    if (!json_is_object(jt))
        return bad(ld, "%s: must be an object", path);
    if (jsonget_keys(jt, path, keys, ld->err, ld->errlen) != 0)
        return -1;
    if (load_case(ld, jt, path, p->tests, idx, "tests", "test", &p->limits) != 0)
        return -1;

    if (jsonget_string(jt, path, "kind", true, &kind, ld->err, ld->errlen) != 0)
        return -1;
    int k = problem_test_kind_from_name(kind);
    if (k < 0)
        return bad(ld, "%s.kind: '%s' is not '%s' or '%s'", path, kind,
                   problem_test_kind_name(TEST_SAMPLE), problem_test_kind_name(TEST_HIDDEN));
    t->kind = (enum test_kind)k;

    /* A hidden seed written in the package would be public to anyone who
     * can read the package; hidden seeds come from the deployment secret. */
    v = json_object_get(jt, "seed");
    if (t->kind == TEST_HIDDEN && v)
        return bad(ld, "%s: hidden tests must not carry a seed", path);
    if (t->kind == TEST_SAMPLE) {
        if (!v)
            return bad(ld, "%s: sample tests need a 'seed'", path);
        if (jsonget_int(jt, path, "seed", 0, INT64_MAX, &n, ld->err, ld->errlen) != 0)
            return -1;
        t->has_seed = true;
        t->seed = (uint64_t)n;
    }

    t->weight = 1;
    if (json_object_get(jt, "weight")) {
        if (jsonget_int(jt, path, "weight", 1, PROBLEM_MAX_WEIGHT, &n, ld->err, ld->errlen) != 0)
            return -1;
        t->weight = (int)n;
    }
    return 0;
}

static int load_tests(struct loader *ld, json_t *arr)
{
    struct problem *p = ld->p;
    size_t i;
    json_t *jt;

    if (!arr)
        return jsonget_missing("", "tests", ld->err, ld->errlen);
    if (!json_is_array(arr) || json_array_size(arr) == 0)
        return bad(ld, "tests: must be a non-empty array");
    if (json_array_size(arr) > PROBLEM_MAX_TESTS)
        return bad(ld, "tests: more than %d tests", PROBLEM_MAX_TESTS);
    p->tests = calloc(json_array_size(arr), sizeof *p->tests);
    if (!p->tests)
        return bad(ld, "out of memory");
    p->n_tests = json_array_size(arr);
    json_array_foreach(arr, i, jt) if (load_test(ld, jt, i) != 0) return -1;
    return 0;
}

/* ---- benchmark sizes ----------------------------------------------------- */

/* An integer expression over the dimensions, for the FLOP and byte counts:
 * every name must be a dimension, and the value at every size positive. */
static int load_count_expr(struct loader *ld, json_t *obj, const char *key, struct expr **e,
                           char **text)
{
    char path[JSONGET_PATH_LEN];
    const char *s;

    jsonget_path_key(path, "benchmark", key);
    if (jsonget_string(obj, "benchmark", key, true, &s, ld->err, ld->errlen) != 0)
        return -1;
    if (parse_dim_expr(ld, s, path, e) != 0)
        return -1;
    return (*text = dup_or_oom(ld, s)) ? 0 : -1;
}

/* The limits a size gets unless it sets its own: benchmark sizes are
 * realistic, many times a test's, so ten times the problem's time (the
 * memory limit stays: in some problems it is the point). */
static struct problem_limits bench_default_limits(const struct problem_limits *l)
{
    struct problem_limits b = *l;
    b.cpu_ms = l->cpu_ms * 10 < LIMIT_MAX_CPU_MS ? l->cpu_ms * 10 : LIMIT_MAX_CPU_MS;
    b.wall_ms = l->wall_ms * 10 < LIMIT_MAX_WALL_MS ? l->wall_ms * 10 : LIMIT_MAX_WALL_MS;
    return b;
}

static int load_benchmark(struct loader *ld, json_t *obj)
{
    static const char *const keys[] = {"flops", "bytes", "sizes", NULL};
    static const char *const size_keys[] = {"name",   "dims",    "generators", "null",
                                            "limits", "scalars", NULL};
    struct problem *p = ld->p;
    struct problem_benchmark *b = &p->bench;
    struct problem_limits lim = bench_default_limits(&p->limits);
    json_t *arr, *js;
    size_t i;

    if (!obj)
        return 0;
    if (!json_is_object(obj))
        return bad(ld, "benchmark: must be an object");
    if (jsonget_keys(obj, "benchmark", keys, ld->err, ld->errlen) != 0)
        return -1;
    if (load_count_expr(ld, obj, "flops", &b->flops, &b->flops_text) != 0 ||
        load_count_expr(ld, obj, "bytes", &b->bytes, &b->bytes_text) != 0)
        return -1;
    arr = json_object_get(obj, "sizes");
    if (!arr)
        return jsonget_missing("benchmark", "sizes", ld->err, ld->errlen);
    if (!json_is_array(arr) || json_array_size(arr) == 0 ||
        json_array_size(arr) > PROBLEM_MAX_BENCH_SIZES)
        return bad(ld, "benchmark.sizes: must be an array of 1 to %d sizes",
                   PROBLEM_MAX_BENCH_SIZES);
    b->sizes = calloc(json_array_size(arr), sizeof *b->sizes);
    if (!b->sizes)
        return bad(ld, "out of memory");
    b->n_sizes = json_array_size(arr);
    json_array_foreach(arr, i, js)
    {
        char path[JSONGET_PATH_LEN], msg[PROBLEM_ERR_LEN];
        int64_t flops, bytes;

        jsonget_path_index(path, "benchmark.sizes", i);
        if (!json_is_object(js))
            return bad(ld, "%s: must be an object", path);
        if (jsonget_keys(js, path, size_keys, ld->err, ld->errlen) != 0 ||
            load_case(ld, js, path, b->sizes, i, "benchmark.sizes", "size", &lim) != 0)
            return -1;
        b->sizes[i].kind = TEST_HIDDEN; /* never shown as a test: a kind for the generators */
        b->sizes[i].weight = 0;
        if (problem_bench_counts(p, b->sizes[i].dims, &flops, &bytes, msg, sizeof msg) != 0)
            return bad(ld, "%s: %s", path, msg);
    }
    return 0;
}

/* ---- the package ------------------------------------------------------ */

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

static char *path_join(const char *dir, const char *name)
{
    char *s;

    if (asprintf(&s, "%s/%s", dir, name) < 0)
        return NULL;
    return s;
}

static bool is_regular_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads the package's text file name (statement.md, starter.c, a hint, the
 * walkthrough): text the server later puts in JSON, so it must be valid
 * UTF-8 (jansson refuses to build a string that is not). */
static char *read_text(struct loader *ld, const char *dir, const char *name, int flags, size_t max)
{
    char *path = path_join(dir, name), *text = NULL;
    size_t len = 0;
    json_t *probe;

    if (!path) {
        bad(ld, "out of memory");
        return NULL;
    }
    text = read_text_file(path, name, flags, max, &len, ld);
    free(path);
    if (!text)
        return NULL;
    probe = json_stringn(text, len);
    if (!probe) {
        bad(ld, "%s: not valid UTF-8", name);
        free(text);
        return NULL;
    }
    json_decref(probe);
    return text;
}

static char *read_package_text(struct loader *ld, const char *dir, const char *name)
{
    return read_text(ld, dir, name, 0, PROBLEM_MAX_FILE);
}

static int load_reference(struct loader *ld, const char *dir, const char *reference_dir)
{
    struct problem *p = ld->p;
    char *path = path_join(dir, "reference.c");

    if (!path)
        return bad(ld, "out of memory");
    if (!is_regular_file(path) && reference_dir) {
        free(path);
        if (asprintf(&path, "%s/%s.c", reference_dir, p->slug) < 0)
            return bad(ld, "out of memory");
    }
    if (is_regular_file(path))
        p->reference_path = path;
    else
        free(path);
    return 0;
}

/* ---- known mistakes --------------------------------------------------- */

/* A mistake's title or hint at path.key: required, non-empty, at most max
 * bytes (it is shown to students in one line above the heatmap). */
static int load_mistake_text(struct loader *ld, json_t *jm, const char *path, const char *key,
                             size_t max, char **out)
{
    const char *v;

    if (jsonget_string(jm, path, key, true, &v, ld->err, ld->errlen) != 0)
        return -1;
    if (*v == '\0')
        return bad(ld, "%s.%s: must not be empty", path, key);
    if (strlen(v) > max)
        return bad(ld, "%s.%s: longer than %zu bytes", path, key, max);
    *out = dup_or_oom(ld, v);
    return *out ? 0 : -1;
}

/* The optional "mistakes" array: each entry's id, title and hint, and its
 * C file <dir>/mistakes/<id>.c, read once here through the reader the judge
 * uses for the reference (no symlink, a regular file of at most
 * PROBLEM_MAX_FILE bytes) so that a package naming a missing file fails at
 * load, not at a student's submission. */
static int load_mistakes(struct loader *ld, json_t *arr, const char *dir)
{
    static const char *const keys[] = {"id", "title", "hint", NULL};
    struct problem *p = ld->p;
    char path[JSONGET_PATH_LEN];
    size_t i;
    json_t *jm;

    if (!arr)
        return 0;
    if (!json_is_array(arr))
        return bad(ld, "mistakes: must be an array of objects");
    if (json_array_size(arr) > PROBLEM_MAX_MISTAKES)
        return bad(ld, "mistakes: more than %d entries", PROBLEM_MAX_MISTAKES);
    p->mistakes = calloc(json_array_size(arr) + 1, sizeof *p->mistakes);
    if (!p->mistakes)
        return bad(ld, "out of memory");
    json_array_foreach(arr, i, jm)
    {
        struct problem_mistake *m = &p->mistakes[i];
        const char *id;
        char *src = NULL;

        jsonget_path_index(path, "mistakes", i);
        if (!json_is_object(jm))
            return bad(ld, "%s: must be an object", path);
        if (jsonget_keys(jm, path, keys, ld->err, ld->errlen) != 0 ||
            jsonget_string(jm, path, "id", true, &id, ld->err, ld->errlen) != 0)
            return -1;
        /* the id names a file and appears in reports: a slug's alphabet */
        if (!names_slug_valid(id))
            return bad(ld, "%s.id: '%s' must match [a-z0-9][a-z0-9-]{0,62}", path, id);
        for (size_t k = 0; k < i; k++)
            if (strcmp(p->mistakes[k].id, id) == 0)
                return bad(ld, "%s.id: duplicate mistake '%s' (also mistakes[%zu])", path, id, k);
        if (!(m->id = dup_or_oom(ld, id)))
            return -1;
        p->n_mistakes = i + 1;
        if (load_mistake_text(ld, jm, path, "title", PROBLEM_MISTAKE_TITLE_MAX, &m->title) != 0 ||
            load_mistake_text(ld, jm, path, "hint", PROBLEM_MISTAKE_HINT_MAX, &m->hint) != 0)
            return -1;
        if (asprintf(&m->path, "%s/mistakes/%s.c", dir, id) < 0) {
            m->path = NULL;
            return bad(ld, "out of memory");
        }
        if (fs_read_file(m->path, O_NOFOLLOW, PROBLEM_MAX_FILE, &src, NULL) != 0) {
            int e = errno;
            return bad(ld, "%s: mistakes/%s.c: %s", path, id,
                       e == ENOENT                 ? "missing"
                       : e == EFBIG                ? "larger than a package file may be"
                       : e == EINVAL || e == ELOOP ? "not a regular file"
                                                   : strerror(e));
        }
        free(src);
    }
    return 0;
}

/* ---- hints and walkthrough ------------------------------------------- */

/* 1 to PROBLEM_MAX_HINTS for a hint file's name "N.md"; 0 for any other
 * name ("01.md", "10.md", "1.MD", "hint1.md"). */
static int hint_number(const char *name)
{
    if (name[0] >= '1' && name[0] <= '0' + PROBLEM_MAX_HINTS && strcmp(name + 1, ".md") == 0)
        return name[0] - '0';
    return 0;
}

/* A directory entry's name fit for a message (it may hold any byte but '/'
 * and NUL): printable ASCII, other bytes as '?', at most len - 1 bytes. */
static void printable_name(const char *name, char *out, size_t len)
{
    size_t i = 0;

    for (; name[i] && i + 1 < len; i++)
        out[i] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
    out[i] = '\0';
}

/* True if s holds something besides white space. */
static bool has_text(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return true;
    return false;
}

/* The optional hints/ directory: 1.md, 2.md, ... numbered without gaps, at
 * most PROBLEM_MAX_HINTS, and nothing else: a stray file is a typo
 * ("hint3.md", "4.MD") that would otherwise drop a hint without a word.
 * Each hint is a regular file (no symbolic link) of at most
 * PROBLEM_HINT_MAX bytes of UTF-8 with some text in it. */
static int load_hints(struct loader *ld, const char *dir)
{
    struct problem *p = ld->p;
    bool seen[PROBLEM_MAX_HINTS + 1] = {false};
    char *hdir = path_join(dir, "hints"), name[80];
    struct dirent *de;
    DIR *d = NULL;
    int fd = -1, rc = -1;
    size_t n = 0;

    if (!hdir)
        return bad(ld, "out of memory");
    if ((fd = open(hdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        if (errno == ENOENT)
            rc = 0; /* no hints */
        else if (errno == ENOTDIR || errno == ELOOP)
            bad(ld, "hints: not a directory");
        else
            bad(ld, "hints: %s", strerror(errno));
        goto out;
    }
    if (!(d = fdopendir(fd))) {
        bad(ld, "hints: %s", strerror(errno));
        goto out;
    }
    fd = -1; /* the stream owns it */
    for (errno = 0; (de = readdir(d)) != NULL; errno = 0) {
        int k;

        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if ((k = hint_number(de->d_name)) == 0) {
            printable_name(de->d_name, name, sizeof name);
            bad(ld, "hints/%s: not a hint file (hints are hints/1.md, hints/2.md, ... at most %d)",
                name, PROBLEM_MAX_HINTS);
            goto out;
        }
        seen[k] = true;
        n++;
    }
    if (errno != 0) {
        bad(ld, "hints: %s", strerror(errno));
        goto out;
    }
    /* n distinct numbers that are not 1..n leave a gap at or below n */
    for (size_t k = 1; k <= n; k++)
        if (!seen[k]) {
            bad(ld, "hints/%zu.md: missing (hints are numbered 1, 2, ... without gaps)", k);
            goto out;
        }
    for (size_t k = 0; k < n; k++) {
        snprintf(name, sizeof name, "hints/%zu.md", k + 1);
        if (!(p->hints[k] = read_text(ld, dir, name, O_NOFOLLOW, PROBLEM_HINT_MAX)))
            goto out;
        p->n_hints = k + 1;
        if (!has_text(p->hints[k])) {
            bad(ld, "%s: empty", name);
            goto out;
        }
    }
    rc = 0;
out:
    if (d)
        closedir(d);
    if (fd >= 0)
        close(fd);
    free(hdir);
    return rc;
}

/* The optional walkthrough.md (a regular file, no symbolic link, UTF-8,
 * not empty). problem.json's walkthrough_opens_at needs one. */
static int load_walkthrough(struct loader *ld, const char *dir)
{
    struct problem *p = ld->p;
    char *path = path_join(dir, "walkthrough.md");
    struct stat st;
    bool absent;

    if (!path)
        return bad(ld, "out of memory");
    absent = lstat(path, &st) != 0 && errno == ENOENT;
    free(path);
    if (absent)
        return p->walkthrough_opens_at
                   ? bad(ld, "walkthrough_opens_at: the package has no walkthrough.md")
                   : 0;
    if (!(p->walkthrough_md = read_text(ld, dir, "walkthrough.md", O_NOFOLLOW, PROBLEM_MAX_FILE)))
        return -1;
    if (!has_text(p->walkthrough_md))
        return bad(ld, "walkthrough.md: empty");
    return 0;
}

static int load_json(struct loader *ld, json_t *root, const char *dir)
{
    static const char *const keys[] = {
        "slug",      "title",  "difficulty",    "tags",       "prerequisites",
        "function",  "params", "constraints",   "generators", "tolerance",
        "limits",    "tests",  "run_all_tests", "mistakes",   "walkthrough_opens_at",
        "benchmark", NULL};
    struct problem *p = ld->p;
    const char *slug, *title, *difficulty, *function, *why;
    char *base;
    json_t *v;
    int rc;

    if (!json_is_object(root))
        return bad(ld, "problem.json: must be a JSON object");
    if (jsonget_keys(root, "", keys, ld->err, ld->errlen) != 0)
        return -1;

    if (jsonget_string(root, "", "slug", true, &slug, ld->err, ld->errlen) != 0)
        return -1;
    if (!names_slug_valid(slug))
        return bad(ld, "slug: '%s' must match [a-z0-9][a-z0-9-]{0,62}", slug);
    base = dir_basename(dir);
    if (!base)
        return bad(ld, "%s: cannot resolve the directory name: %s", dir, strerror(errno));
    rc = strcmp(base, slug);
    if (rc != 0)
        bad(ld, "slug: '%s' does not match the directory name '%s'", slug, base);
    free(base);
    if (rc != 0)
        return -1;
    if (!(p->slug = dup_or_oom(ld, slug)))
        return -1;

    if (jsonget_string(root, "", "title", true, &title, ld->err, ld->errlen) != 0)
        return -1;
    if (*title == '\0')
        return bad(ld, "title: must not be empty");
    if (jsonget_string(root, "", "difficulty", true, &difficulty, ld->err, ld->errlen) != 0)
        return -1;
    if (strcmp(difficulty, "easy") != 0 && strcmp(difficulty, "medium") != 0 &&
        strcmp(difficulty, "hard") != 0)
        return bad(ld, "difficulty: '%s' is not easy, medium or hard", difficulty);
    if (!(p->title = dup_or_oom(ld, title)) || !(p->difficulty = dup_or_oom(ld, difficulty)))
        return -1;
    if (jsonget_strings(root, "tags", PROBLEM_MAX_TAGS, NULL, NULL, &p->tags, &p->n_tags, ld->err,
                        ld->errlen) != 0 ||
        jsonget_strings(root, "prerequisites", PROBLEM_MAX_TAGS, names_slug_valid, "a valid slug",
                        &p->prereqs, &p->n_prereqs, ld->err, ld->errlen) != 0)
        return -1;

    if (jsonget_string(root, "", "function", true, &function, ld->err, ld->errlen) != 0)
        return -1;
    if ((why = names_c_identifier_error(function)) != NULL)
        return bad(ld, "function: '%s' %s", function, why);
    if (!(p->function = dup_or_oom(ld, function)))
        return -1;

    if (!(v = json_object_get(root, "params")))
        return jsonget_missing("", "params", ld->err, ld->errlen);
    if (load_params(ld, v) != 0)
        return -1;
    if (load_constraints(ld, json_object_get(root, "constraints")) != 0)
        return -1;

    if ((v = json_object_get(root, "generators")) != NULL) {
        struct gen_spec gens[PROBLEM_MAX_PARAMS];

        for (int i = 0; i < p->n_params; i++)
            gens[i] = p->params[i].gen;
        if (load_generators(ld, v, "generators", gens) != 0)
            return -1;
        for (int i = 0; i < p->n_params; i++)
            p->params[i].gen = gens[i];
    }

    if (load_tolerance(ld, json_object_get(root, "tolerance")) != 0)
        return -1;
    p->limits = default_limits;
    if ((v = json_object_get(root, "limits")) != NULL &&
        load_limits(ld, v, "limits", &p->limits) != 0)
        return -1;
    if ((v = json_object_get(root, "run_all_tests")) != NULL) {
        if (!json_is_boolean(v))
            return bad(ld, "run_all_tests: must be true or false");
        p->run_all_tests = json_is_true(v);
    }
    if ((v = json_object_get(root, "walkthrough_opens_at")) != NULL &&
        (!json_is_string(v) || isotime_parse(json_string_value(v), &p->walkthrough_opens_at) != 0))
        return bad(ld, "walkthrough_opens_at: must be a date-time with a time zone, e.g. "
                       "\"2025-03-01T09:00:00Z\" or \"2025-03-01T10:00:00+01:00\"");
    if (load_tests(ld, json_object_get(root, "tests")) != 0 ||
        load_benchmark(ld, json_object_get(root, "benchmark")) != 0)
        return -1;
    return load_mistakes(ld, json_object_get(root, "mistakes"), dir);
}

/* problem_load with problem.json's text (len bytes, copied) and its parse
 * either supplied (root) or read from dir (text NULL). */
static struct problem *load(const char *dir, const char *reference_dir, const char *text,
                            size_t len, json_t *root, char *err, size_t errlen)
{
    struct loader ld = {.err = err, .errlen = errlen};
    struct problem *p = NULL;
    json_t *own = NULL;
    json_error_t jerr;
    char *path = NULL;
    bool ok = false;

    p = calloc(1, sizeof *p);
    if (!p) {
        errbuf_set(err, errlen, "out of memory");
        goto out;
    }
    ld.p = p;
    if (!(p->dir = dup_or_oom(&ld, dir)))
        goto out;

    if (text) {
        if (!(p->json_text = malloc(len + 1))) {
            bad(&ld, "out of memory");
            goto out;
        }
        memcpy(p->json_text, text, len);
        p->json_text[len] = '\0';
    } else {
        if (!(path = path_join(dir, "problem.json"))) {
            bad(&ld, "out of memory");
            goto out;
        }
        p->json_text = read_text_file(path, "problem.json", 0, PROBLEM_MAX_FILE, &len, &ld);
        if (!p->json_text)
            goto out;
        /* Duplicate keys are refused: which of the two would win is a guess. */
        root = own = json_loadb(p->json_text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!root) {
            bad(&ld, "problem.json: line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
            goto out;
        }
    }
    if (load_json(&ld, root, dir) != 0)
        goto out;

    if (!(p->statement_md = read_package_text(&ld, dir, "statement.md")) ||
        !(p->starter_c = read_package_text(&ld, dir, "starter.c")))
        goto out;
    if (load_hints(&ld, dir) != 0 || load_walkthrough(&ld, dir) != 0)
        goto out;
    if (load_reference(&ld, dir, reference_dir) != 0)
        goto out;
    ok = true;

out:
    json_decref(own);
    free(path);
    if (!ok) {
        problem_free(p);
        p = NULL;
    }
    return p;
}

struct problem *problem_load(const char *dir, const char *reference_dir, char *err, size_t errlen)
{
    return load(dir, reference_dir, NULL, 0, NULL, err, errlen);
}

struct problem *problem_load_parsed(const char *dir, const char *json_text, struct json_t *root,
                                    char *err, size_t errlen)
{
    return load(dir, NULL, json_text, strlen(json_text), root, err, errlen);
}

void problem_free(struct problem *p)
{
    if (!p)
        return;
    free(p->dir);
    free(p->slug);
    free(p->title);
    free(p->difficulty);
    for (size_t i = 0; i < p->n_tags; i++)
        free(p->tags[i]);
    free(p->tags);
    for (size_t i = 0; i < p->n_prereqs; i++)
        free(p->prereqs[i]);
    free(p->prereqs);
    free(p->function);
    for (int i = 0; i < PROBLEM_MAX_PARAMS; i++) {
        free(p->params[i].name);
        for (int k = 0; k < TENSOR_MAX_RANK; k++) {
            expr_free(p->params[i].shape[k]);
            free(p->params[i].shape_text[k]);
        }
    }
    for (size_t i = 0; i < p->n_constraints; i++) {
        expr_free(p->constraints[i]);
        free(p->constraint_text[i]);
    }
    free(p->constraints);
    free(p->constraint_text);
    for (size_t i = 0; i < p->n_tests; i++) {
        free(p->tests[i].name);
        free(p->tests[i].dims);
    }
    free(p->tests);
    for (size_t i = 0; i < p->bench.n_sizes; i++) {
        free(p->bench.sizes[i].name);
        free(p->bench.sizes[i].dims);
    }
    free(p->bench.sizes);
    expr_free(p->bench.flops);
    expr_free(p->bench.bytes);
    free(p->bench.flops_text);
    free(p->bench.bytes_text);
    free(p->statement_md);
    free(p->starter_c);
    free(p->reference_path);
    free(p->json_text);
    for (size_t i = 0; i < p->n_mistakes; i++) {
        free(p->mistakes[i].id);
        free(p->mistakes[i].title);
        free(p->mistakes[i].hint);
        free(p->mistakes[i].path);
    }
    free(p->mistakes);
    for (size_t i = 0; i < p->n_hints; i++)
        free(p->hints[i]);
    free(p->walkthrough_md);
    free(p);
}

/* ---- queries ---------------------------------------------------------- */

static const char *const test_kind_names[] = {
    [TEST_SAMPLE] = "sample",
    [TEST_HIDDEN] = "hidden",
};

const char *problem_test_kind_name(enum test_kind k)
{
    return k == TEST_SAMPLE ? test_kind_names[TEST_SAMPLE] : test_kind_names[TEST_HIDDEN];
}

int problem_test_kind_from_name(const char *name)
{
    for (int k = TEST_SAMPLE; k <= TEST_HIDDEN; k++)
        if (strcmp(test_kind_names[k], name) == 0)
            return k;
    return -1;
}

const struct test_case *problem_find_test(const struct problem *p, const char *name)
{
    for (size_t i = 0; i < p->n_tests; i++)
        if (strcmp(p->tests[i].name, name) == 0)
            return &p->tests[i];
    return NULL;
}

const char *problem_role_name(enum param_role r)
{
    return r == ROLE_IN ? "in" : r == ROLE_OUT ? "out" : "inout";
}

const char *problem_scalar_ctype(const struct param *q)
{
    return q->is_double ? "double" : "float";
}

void problem_default_scalars(const struct problem *p, double values[PROBLEM_MAX_PARAMS])
{
    for (int i = 0; i < p->n_params; i++)
        values[i] = p->params[i].kind == PARAM_FLOAT ? p->params[i].value : 0;
}

int problem_find_param(const struct problem *p, const char *name)
{
    for (int i = 0; i < p->n_params; i++)
        if (p->params[i].name && strcmp(p->params[i].name, name) == 0)
            return i;
    return -1;
}

/* lookup for expr_eval: a dimension's value at dims */
struct dims_at {
    const struct problem *p;
    const int64_t *dims;
};

static int lookup_dim(void *ctx, const char *name, int64_t *value)
{
    const struct dims_at *at = ctx;
    int i = problem_find_param(at->p, name);
    if (i < 0 || at->p->params[i].kind != PARAM_INT)
        return -1;
    *value = at->dims[at->p->params[i].dim_index];
    return 0;
}

int problem_bench_counts(const struct problem *p, const int64_t *dims, int64_t *flops,
                         int64_t *bytes, char *err, size_t errlen)
{
    struct dims_at at = {p, dims};
    char why[PROBLEM_ERR_LEN];

    if (expr_eval(p->bench.flops, lookup_dim, &at, flops, why, sizeof why) != 0) {
        snprintf(err, errlen, "benchmark.flops: %s", why);
        return -1;
    }
    if (expr_eval(p->bench.bytes, lookup_dim, &at, bytes, why, sizeof why) != 0) {
        snprintf(err, errlen, "benchmark.bytes: %s", why);
        return -1;
    }
    /* a problem that only moves data does no arithmetic: flops 0 */
    if (*flops < 0 || *bytes <= 0) {
        snprintf(err, errlen,
                 "benchmark: flops must be 0 or more and bytes positive (%" PRId64 ", %" PRId64 ")",
                 *flops, *bytes);
        return -1;
    }
    return 0;
}
