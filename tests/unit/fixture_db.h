/*
 * fixture_db — the database the store's unit tests (test_store*.c,
 * test_queue.c) run on: a fresh SQLite file in a temporary directory, or,
 * given ATTNJUDGE_TEST_PG_URL (the pg suite, tests/pg/run.sh), a fresh
 * PostgreSQL schema of the case's own, and a store on it with one user and
 * one problem. A case's state says which backend: PG_CASE(f) runs f on
 * PostgreSQL, cmocka_unit_test(f) on SQLite.
 */
#ifndef ATTNJUDGE_TESTS_FIXTURE_DB_H
#define ATTNJUDGE_TESTS_FIXTURE_DB_H

#include <stdbool.h>
#include <stdint.h>

#include "server/store.h"

/* The temporary directory of the SQLite files (made by fixture_setup). */
extern char fixture_dir[];
/* The database of the case running (set by fresh_store). */
extern char fixture_url[512];
/* The state PG_CASE gives a case. */
extern int fixture_on_pg;

/* A store case on PostgreSQL (skipped without ATTNJUDGE_TEST_PG_URL). */
#define PG_CASE(f) cmocka_unit_test_prestate(f, &fixture_on_pg)

/* The group setup and teardown: make and remove fixture_dir, read
 * ATTNJUDGE_TEST_PG_URL. */
int fixture_setup(void **state);
int fixture_teardown(void **state);

/* True when the case runs on PostgreSQL. */
bool is_pg(void **state);

/* Runs script on the case's database (fixture_url), as an operator would;
 * fails the case if it does not run. */
void exec_on_db(const char *script);

/* A fresh database named name with one user "alice" (its id in *user) and
 * one problem "p" at version 1, migrated (twice: migrations are
 * idempotent); the PostgreSQL case is skipped without a server. The caller
 * closes it with store_close. */
struct store *fresh_store(void **state, const char *name, int64_t *user);

/* Queue limits no case reaches. */
extern const struct store_queue_limits roomy;
/* An accepted result with its report. */
extern const struct store_result accepted;

/* Submits n sources for user at time t (ms), returning the first id. */
int64_t submit_n(struct store *s, int64_t user, int n, int64_t t);

/* store_submission_fn: the hints_opened of the one row read into *(int *)arg. */
int note_hints(void *arg, const struct store_submission_row *row);

#endif
