/*
 * problem_load — loading a package: problem.json, strictly, then the
 * other files (judge/problem_files.c). Defines problem_load,
 * problem_load_all and problem_load_parsed of judge/problem.h.
 *
 * problem_load_json() checks the parsed problem.json
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
#include "judge/problem.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/jsonget.h"
#include "judge/names.h"
#include "judge/problem_cases.h"
#include "judge/problem_domain.h"
#include "judge/problem_files.h"
#include "judge/problem_loader.h"
#include "util/fs.h"
#include "util/isotime.h"

#define PROBLEM_MAX_CONSTRAINTS 64
#define PROBLEM_MAX_TAGS 64

static const struct problem_limits default_limits = {
    .cpu_ms = 2000, .wall_ms = 6000, .memory_mb = 256};

/* ---- small helpers ---------------------------------------------------- */

/* The default generator of a tensor of dtype t (docs/problem-format.md).
 * Every field is set, so that a test switching the distribution finds the
 * documented defaults of the new one. */
static struct gen_spec default_gen(enum tensor_dtype t)
{
    struct gen_spec g = {.dist = GEN_NORMAL,
                         .mean = 0,
                         .std = 1,
                         .lo = -1,
                         .hi = 1,
                         .p = 0.5,
                         .at = GEN_AT_RANDOM,
                         .excess = GEN_DOMINANT_EXCESS};

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

static int problem_load_json(struct problem_loader *ld, json_t *root, const char *dir)
{
    static const char *const keys[] = {
        "slug",      "title",  "difficulty",    "tags",       "prerequisites",
        "function",  "params", "constraints",   "generators", "tolerance",
        "limits",    "tests",  "run_all_tests", "mistakes",   "walkthrough_opens_at",
        "benchmark", "domain", "search",        NULL};
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
        step(ld, problem_load_domain(ld, json_object_get(root, "domain")));
    }
    step(ld, problem_load_search(ld, json_object_get(root, "search")));
    return ld->failed ? -1 : 0;
}

/* ---- one load: problem.json, then the files ---------------------------- */

/* problem_load with problem.json's text (len bytes, copied) and its parse
 * either supplied (root) or read from dir (text NULL). The first error
 * goes to err, every error to errs (either may be NULL). */
static struct problem *load(const char *dir, const char *reference_dir, const char *text,
                            size_t len, json_t *root, char *err, size_t errlen,
                            struct problem_errors *errs)
{
    struct problem_loader ld;
    struct problem *p = NULL;
    json_t *own = NULL;
    json_error_t jerr;
    char *path = NULL;
    bool ok = false;

    if (errs)
        memset(errs, 0, sizeof *errs);
    p = calloc(1, sizeof *p);
    problem_loader_init(&ld, p, err, errlen, errs);
    if (!p) {
        problem_loader_bad(&ld, "out of memory");
        goto out;
    }
    if (!(p->dir = problem_loader_strdup(&ld, dir)))
        goto out;

    if (text) {
        if (!(p->json_text = malloc(len + 1))) {
            problem_loader_bad(&ld, "out of memory");
            goto out;
        }
        memcpy(p->json_text, text, len);
        p->json_text[len] = '\0';
    } else {
        if (!(path = fs_path_join(dir, "problem.json"))) {
            problem_loader_bad(&ld, "out of memory");
            goto out;
        }
        p->json_text = problem_files_read(path, "problem.json", 0, PROBLEM_MAX_FILE, &len, &ld);
        if (!p->json_text)
            goto out;
        /* Duplicate keys are refused: which of the two would win is a guess. */
        root = own = json_loadb(p->json_text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!root) {
            problem_loader_bad(&ld, "problem.json: line %d, column %d: %s", jerr.line, jerr.column,
                               jerr.text);
            goto out;
        }
    }
    /* problem.json's errors, then the files' (each file on its own) */
    if (problem_load_json(&ld, root, dir) != 0)
        problem_loader_note(&ld);
    problem_files_load(&ld, root, dir, reference_dir);
    ok = !ld.failed;

out:
    if (!ok) {
        problem_loader_note(&ld); /* the error that stopped the load, if any */
        if (!ld.n_noted) {        /* never a failure without a word */
            problem_loader_bad(&ld, "%s: the package does not load", dir);
            problem_loader_note(&ld);
        }
    }
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
    return load(dir, reference_dir, NULL, 0, NULL, err, errlen, NULL);
}

struct problem *problem_load_all(const char *dir, const char *reference_dir,
                                 struct problem_errors *errs)
{
    return load(dir, reference_dir, NULL, 0, NULL, NULL, 0, errs);
}

struct problem *problem_load_parsed(const char *dir, const char *json_text, struct json_t *root,
                                    char *err, size_t errlen, struct problem_errors *errs)
{
    return load(dir, NULL, json_text, strlen(json_text), root, err, errlen, errs);
}
