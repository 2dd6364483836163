/*
 * Unit tests of judge/problem_domain.c: problem.json's "domain" (the input
 * domain the counterexample search draws from), "search" (its budget) and
 * the adversarial families named as generators, each wrong field named in
 * the load's error (problem_fixture.h's package).
 */
#include "tests/unit/problem_fixture.h"

static json_t *domain_json(void)
{
    json_error_t jerr;
    json_t *d = json_loads("{\"dims\": {\"B\": [1, 2], \"Tq\": [1, 9], \"Tk\": [1, 64],"
                           " \"d_model\": [4, 12], \"num_heads\": [1, 4]},"
                           " \"values\": {\"query\": {\"max_abs\": 1000}},"
                           " \"masks\": {\"mask\": {\"row_open\": true}},"
                           " \"max_elems\": 5000}",
                           0, &jerr);
    if (!d)
        fail_msg("domain_json: %s", jerr.text);
    return d;
}

static void test_domain_loads(void **state)
{
    struct fixture *fx = *state;
    json_t *root = base();
    struct problem *p;

    p = load_ok(fx);
    assert_false(p->domain.present);
    assert_false(p->search.has_budget);
    problem_free(p);

    json_object_set_new(root, "domain", domain_json());
    json_object_set_new(root, "search", json_pack("{s:i}", "budget_ms", 0));
    write_json(fx->dir, root);
    json_decref(root);
    p = load_ok(fx);
    assert_true(p->domain.present);
    int tk = p->params[problem_find_param(p, "Tk")].dim_index;
    assert_int_equal(p->domain.dim_lo[tk], 1);
    assert_int_equal(p->domain.dim_hi[tk], 64);
    assert_true(p->domain.max_abs[problem_find_param(p, "query")] == 1000);
    assert_true(p->domain.max_abs[problem_find_param(p, "key")] == 0);
    assert_true(p->domain.mask_listed[problem_find_param(p, "mask")]);
    assert_true(p->domain.row_open[problem_find_param(p, "mask")]);
    assert_int_equal(p->domain.max_elems, 5000);
    assert_true(p->search.has_budget);
    assert_int_equal(p->search.budget_ms, 0);
    problem_free(p);
}

/* Applies a mutation to a fresh domain and expects want. */
static void expect_domain_error(struct fixture *fx, const char *path, json_t *value,
                                const char *want)
{
    json_t *root = base(), *d = domain_json(), *at = d;
    char buf[128], *save = NULL, *key;

    snprintf(buf, sizeof buf, "%s", path);
    key = strtok_r(buf, ".", &save);
    for (char *next; (next = strtok_r(NULL, ".", &save)) != NULL; key = next)
        at = json_object_get(at, key);
    if (value)
        json_object_set_new(at, key, value);
    else
        json_object_del(at, key);
    json_object_set_new(root, "domain", d);
    expect_json_error(fx, root, want);
}

static void test_domain_errors(void **state)
{
    struct fixture *fx = *state;

    expect_domain_error(fx, "dims.Tq", NULL, "domain.dims: missing 'Tq'");
    expect_domain_error(fx, "dims.T", json_pack("[i,i]", 1, 2),
                        "domain.dims: unknown dimension 'T'");
    expect_domain_error(fx, "dims.Tq", json_pack("[i,i]", 5, 2),
                        "domain.dims.Tq: needs 1 <= lo <= hi");
    expect_domain_error(fx, "dims.Tq", json_pack("[i,i]", 0, 2),
                        "domain.dims.Tq: needs 1 <= lo <= hi");
    expect_domain_error(fx, "dims.Tq", json_integer(3), "domain.dims.Tq: must be [lo, hi]");
    expect_domain_error(fx, "values.mask", json_pack("{s:i}", "max_abs", 1),
                        "domain.values.mask: 'mask' is not an f32 input tensor");
    expect_domain_error(fx, "values.out", json_pack("{s:i}", "max_abs", 1),
                        "domain.values.out: 'out' is not an f32 input tensor");
    expect_domain_error(fx, "values.query", json_pack("{s:i}", "max_abs", 0),
                        "domain.values.query.max_abs: must be > 0");
    expect_domain_error(fx, "values.query", json_pack("{s:i}", "maxabs", 3),
                        "domain.values.query: unknown key 'maxabs'");
    expect_domain_error(fx, "masks.query", json_pack("{s:b}", "row_open", 1),
                        "domain.masks.query: 'query' is not a u8 input tensor");
    expect_domain_error(fx, "masks.mask", json_pack("{s:s}", "row_open", "yes"),
                        "domain.masks.mask.row_open: must be true or false");
    expect_domain_error(fx, "max_elems", json_integer(0), "domain.max_elems");
    expect_domain_error(fx, "shapes", json_integer(0), "domain: unknown key 'shapes'");
    expect_domain_error(fx, "dims", NULL, "domain: missing 'dims'");

    json_t *root = base();
    json_object_set_new(root, "search", json_pack("{s:i}", "budget_ms", -1));
    expect_json_error(fx, root, "search.budget_ms: must be between 0 and");
    root = base();
    json_object_set_new(root, "search", json_pack("{s:i}", "budget", 5));
    expect_json_error(fx, root, "search: unknown key 'budget'");
}

/* The families are generators like any other: named in "generators",
 * their parameters checked. */
static void test_family_generators(void **state)
{
    struct fixture *fx = *state;
    json_t *root = base(), *gens = json_object_get(root, "generators");
    struct problem *p;

    json_object_set_new(
        gens, "query",
        json_pack("{s:s, s:s, s:i}", "dist", "dominant", "at", "last", "excess", 300));
    json_object_set_new(gens, "key", json_pack("{s:s, s:i}", "dist", "constant_rows", "std", 50));
    json_object_set_new(gens, "mask", json_pack("{s:s, s:s}", "dist", "one_open", "at", "middle"));
    write_json(fx->dir, root);
    json_decref(root);
    p = load_ok(fx);
    const struct gen_spec *q = &p->params[problem_find_param(p, "query")].gen;
    assert_int_equal(q->dist, GEN_DOMINANT);
    assert_int_equal(q->at, GEN_AT_LAST);
    assert_true(q->excess == 300 && q->std == 1);
    assert_int_equal(p->params[problem_find_param(p, "key")].gen.dist, GEN_CONSTANT_ROWS);
    assert_int_equal(p->params[problem_find_param(p, "mask")].gen.at, GEN_AT_MIDDLE);
    problem_free(p);

    root = base();
    json_object_set_new(json_object_get(root, "generators"), "query",
                        json_pack("{s:s}", "dist", "dominant"));
    write_json(fx->dir, root);
    json_decref(root);
    p = load_ok(fx);
    assert_true(p->params[0].gen.excess == 200);
    assert_int_equal(p->params[0].gen.at, GEN_AT_RANDOM);
    problem_free(p);

    root = base();
    json_object_set_new(json_object_get(root, "generators"), "mask",
                        json_pack("{s:s, s:s}", "dist", "one_open", "at", "centre"));
    expect_json_error(fx, root, "generators.mask.at: must be \"first\"");
    root = base();
    json_object_set_new(json_object_get(root, "generators"), "mask",
                        json_pack("{s:s, s:f}", "dist", "one_open", "p", 0.5));
    expect_json_error(fx, root, "generators.mask.p: not a parameter of 'one_open'");
    root = base();
    json_object_set_new(json_object_get(root, "generators"), "query",
                        json_pack("{s:s}", "dist", "one_open"));
    expect_json_error(fx, root, "generators.query: 'one_open' cannot fill a f32 tensor");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_domain_loads),
        T(test_domain_errors),
        T(test_family_generators),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
