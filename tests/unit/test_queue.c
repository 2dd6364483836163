/*
 * Unit tests of server/queue.c without HTTP: the count of live workers
 * that /healthz reports. Runs on a fresh SQLite database
 * (tests/unit/fixture_db.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/queue.h"
#include "server/store.h"

#include "fixture_db.h"

/* /healthz counts the workers that judge: one whose database does not
 * open exits, and is not counted. */
static void test_queue_live_workers(void **state)
{
    (void)state;
    int64_t uid;
    char path[256], err[256];
    struct store *s = fresh_store(state, "workers", &uid);
    store_close(s);
    snprintf(path, sizeof path, "%s/workers.db", fixture_dir);
    struct queue_host host = {.lease_ms = 30000};
    struct queue *q = queue_start(path, false, 3, NULL, NULL, NULL, NULL, &host, err, sizeof err);
    assert_non_null(q);
    assert_int_equal(queue_workers_live(q), 3);
    assert_int_equal(queue_stop(q, 5), 0);
    snprintf(path, sizeof path, "%s/no-such-dir/workers.db", fixture_dir);
    q = queue_start(path, false, 2, NULL, NULL, NULL, NULL, &host, err, sizeof err);
    assert_non_null(q); /* the server stays up and says so */
    assert_int_equal(queue_workers_live(q), 0);
    assert_int_equal(queue_stop(q, 5), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_live_workers),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
