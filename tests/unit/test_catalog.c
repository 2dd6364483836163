/*
 * Unit tests of catalog_refresh: two hosts with data directories of their
 * own share one database, as front ends and judge hosts do (docs/
 * operations.md, "Judge hosts"). What host A records (a new problem, a
 * state, a deletion, a problem made anew under the same slug) host B
 * shows after one refresh, fetching the files from the database; a
 * version recorded without its package gets it from the host that has
 * the files. On SQLite: the same code runs on PostgreSQL in the cluster
 * test (tests/pg/cluster.py).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <sqlite3.h>

#include "server/catalog.h"
#include "server/store.h"
#include "util/clock.h"

#define SLUG "softmax-stable"

static char tmp[] = "/tmp/attnjudge-catalogtest.XXXXXX";

struct host {
    struct catalog *c;
    struct store *s;
};

struct fixture {
    char db[300], problems[300], none[300];
    struct host a, b;
};

static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

/* problems/<SLUG>/ with its reference.c inside and the given title. */
static void write_package(const char *problems, const char *title)
{
    assert_int_equal(sh("rm -rf '%s' && mkdir -p '%s' && cp -r problems/" SLUG " '%s/' && "
                        "cp reference/" SLUG ".c '%s/" SLUG "/reference.c'",
                        problems, problems, problems, problems),
                     0);
    char path[400];
    snprintf(path, sizeof path, "%s/" SLUG "/problem.json", problems);
    json_t *o = json_load_file(path, 0, NULL);
    assert_non_null(o);
    json_object_set_new(o, "title", json_string(title));
    assert_int_equal(json_dump_file(o, path, JSON_INDENT(2)), 0);
    json_decref(o);
}

static void host_open(struct fixture *fx, struct host *h, const char *name)
{
    char data[300], err[256];
    snprintf(data, sizeof data, "%s/%s", tmp, name);
    assert_int_equal(sh("mkdir -p '%s'", data), 0);
    h->s = store_open(fx->db, false, err, sizeof err);
    assert_non_null(h->s);
    assert_int_equal(store_migrate(h->s), 0);
    h->c = catalog_new(data, NULL);
    assert_non_null(h->c);
    assert_int_equal(catalog_set_database(h->c, fx->db), 0);
}

static void host_close(struct host *h)
{
    catalog_free(h->c);
    store_close(h->s);
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    snprintf(tmp, sizeof tmp, "/tmp/attnjudge-catalogtest.XXXXXX");
    if (!fx || !mkdtemp(tmp))
        return -1;
    snprintf(fx->db, sizeof fx->db, "%s/attnjudge.db", tmp);
    snprintf(fx->problems, sizeof fx->problems, "%s/problems", tmp);
    snprintf(fx->none, sizeof fx->none, "%s/no-problems", tmp);
    write_package(fx->problems, "Stable softmax");
    host_open(fx, &fx->a, "a");
    host_open(fx, &fx->b, "b");
    char err[256];
    /* A imports the package; B, with no problems directory, only reads */
    assert_int_equal(catalog_sync(fx->a.c, fx->a.s, fx->problems, err, sizeof err), 0);
    assert_int_equal(catalog_sync(fx->b.c, fx->b.s, fx->none, err, sizeof err), 0);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    host_close(&fx->a);
    host_close(&fx->b);
    sh("rm -rf '%s'", tmp);
    free(fx);
    return 0;
}

static const char *title(struct host *h, int *version)
{
    char err[512];
    const struct problem *p = catalog_current(h->c, SLUG, version, err, sizeof err);
    return p ? p->title : NULL;
}

/* Whether <tmp>/rel exists. */
static bool exists(const char *rel)
{
    char path[400];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", tmp, rel);
    return stat(path, &sb) == 0;
}

/* B, which never had the files, serves A's version from the database. */
static void test_other_host_fetches_the_package(void **state)
{
    struct fixture *fx = *state;
    int version = 0;
    assert_string_equal(title(&fx->b, &version), "Stable softmax");
    assert_int_equal(version, 1);
    assert_true(exists("b/problems/v1/" SLUG "/reference.c"));
    assert_true(exists("b/problems/v1/" SLUG "/.package-hash"));
}

/* A state set on A is B's after one refresh, not before. */
static void test_state_follows(void **state)
{
    struct fixture *fx = *state;
    int64_t now = clock_wall_ms();
    /* an imported problem is published */
    assert_int_equal(catalog_access(fx->b.c, SLUG, false, now), 0);
    assert_int_equal(catalog_set_state(fx->a.c, fx->a.s, SLUG, "draft", 0), 0);
    assert_int_equal(catalog_access(fx->b.c, SLUG, false, now), 0);
    assert_int_equal(catalog_refresh(fx->b.c, fx->b.s), 0);
    assert_int_equal(catalog_access(fx->b.c, SLUG, false, now), CATALOG_NOT_FOUND);
    size_t len = 0;
    char *list = catalog_list_json(fx->b.c, true, now, &len);
    assert_non_null(strstr(list, "\"state\":\"draft\""));
    free(list);
}

/* Deleted on A: gone from B, its files too. */
static void test_deletion_follows(void **state)
{
    struct fixture *fx = *state;
    char err[256];
    int version = 0;
    assert_non_null(title(&fx->b, &version));
    assert_int_equal(catalog_delete(fx->a.c, fx->a.s, SLUG, err, sizeof err), 0);
    assert_int_equal(catalog_refresh(fx->b.c, fx->b.s), 0);
    assert_null(title(&fx->b, &version));
    assert_false(exists("b/problems/v1/" SLUG));
    assert_int_equal(catalog_access(fx->b.c, SLUG, true, clock_wall_ms()), CATALOG_NOT_FOUND);
}

/* Deleted and made anew on A between two refreshes of B: the new version
 * 1 is another package, and B drops its old files and loaded problem for
 * it (a worker holding the old one may still read it). */
static void test_recreated_problem_replaces_old_files(void **state)
{
    struct fixture *fx = *state;
    char err[256];
    int version = 0;
    const struct problem *old = catalog_current(fx->b.c, SLUG, &version, err, sizeof err);
    assert_non_null(old);
    assert_int_equal(catalog_delete(fx->a.c, fx->a.s, SLUG, err, sizeof err), 0);
    write_package(fx->problems, "Stable softmax, second edition");
    assert_int_equal(catalog_sync(fx->a.c, fx->a.s, fx->problems, err, sizeof err), 0);
    assert_string_equal(title(&fx->a, &version), "Stable softmax, second edition");
    assert_int_equal(version, 1);

    assert_int_equal(catalog_refresh(fx->b.c, fx->b.s), 0);
    assert_string_equal(title(&fx->b, &version), "Stable softmax, second edition");
    assert_int_equal(version, 1);
    char err2[512];
    assert_ptr_not_equal(catalog_get(fx->b.c, SLUG, 1, err2, sizeof err2), old);
    assert_string_equal(old->title, "Stable softmax"); /* still valid */
}

/* A host that was down while the problem was made anew finds its stale
 * files at start-up (their stamp is another package's) and replaces them. */
static void test_stale_files_found_at_start(void **state)
{
    struct fixture *fx = *state;
    char err[256];
    int version = 0;
    assert_non_null(title(&fx->b, &version)); /* b/problems/v1 written */
    host_close(&fx->b);
    assert_int_equal(catalog_delete(fx->a.c, fx->a.s, SLUG, err, sizeof err), 0);
    write_package(fx->problems, "Softmax, once more");
    assert_int_equal(catalog_sync(fx->a.c, fx->a.s, fx->problems, err, sizeof err), 0);
    host_open(fx, &fx->b, "b");
    assert_int_equal(catalog_sync(fx->b.c, fx->b.s, fx->none, err, sizeof err), 0);
    assert_string_equal(title(&fx->b, &version), "Softmax, once more");
}

/* A version recorded before packages were kept in the database gets its
 * package from the host with its files, and then loads on a new host. */
static void test_backfill_from_files(void **state)
{
    struct fixture *fx = *state;
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open(fx->db, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, "UPDATE problem_versions SET package = NULL", 0, 0, 0),
                     SQLITE_OK);
    sqlite3_close(h);
    void *data = NULL;
    size_t len = 0;
    assert_int_equal(store_problem_package(fx->a.s, SLUG, 1, &data, &len), STORE_NOT_FOUND);

    assert_int_equal(catalog_refresh(fx->a.c, fx->a.s), 0);
    assert_int_equal(store_problem_package(fx->a.s, SLUG, 1, &data, &len), 0);
    assert_true(len > 0);
    free(data);

    struct host c;
    char err[256];
    int version = 0;
    host_open(fx, &c, "c");
    assert_int_equal(catalog_sync(c.c, c.s, fx->none, err, sizeof err), 0);
    assert_string_equal(title(&c, &version), "Stable softmax");
    host_close(&c);
}

/* An unchanged database: a refresh reads, changes nothing, and a version
 * B loaded stays the same pointer. */
static void test_unchanged_refresh_keeps_everything(void **state)
{
    struct fixture *fx = *state;
    char err[512];
    int version = 0;
    const struct problem *p = catalog_current(fx->b.c, SLUG, &version, err, sizeof err);
    assert_non_null(p);
    for (int i = 0; i < 3; i++)
        assert_int_equal(catalog_refresh(fx->b.c, fx->b.s), 0);
    assert_ptr_equal(catalog_current(fx->b.c, SLUG, &version, err, sizeof err), p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_other_host_fetches_the_package, setup, teardown),
        cmocka_unit_test_setup_teardown(test_state_follows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deletion_follows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recreated_problem_replaces_old_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_files_found_at_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backfill_from_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unchanged_refresh_keeps_everything, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
