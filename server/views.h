/*
 * views — the shapes of the API's responses (docs/api.md) built from the
 * store's rows: submissions, leaderboards, times, the grades CSV.
 *
 * Nothing here touches the database: the handlers read rows with store.h
 * and hand them to these functions (most are store callbacks as they stand).
 * JSON results are new references (caller decrefs); NULL means out of
 * memory.
 */
#ifndef ATTNJUDGE_SERVER_VIEWS_H
#define ATTNJUDGE_SERVER_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "server/store.h"

/* ms since the epoch as an ISO 8601 UTC string with milliseconds
 * ("2025-01-31T12:00:00.123Z"), or JSON null for 0 (never) and before. */
json_t *views_time(int64_t ms);

/* GET /api/submissions/{id}: the stored report (verdict, score,
 * compile_log, tests, ...) once done, overlaid with the server's own
 * fields, which always win. Unfiltered: hidden tests are redacted by the
 * caller for students. */
json_t *views_submission(const struct store_submission_row *row);

/* A store_submission_fn: appends row's summary (the list's fields) to the
 * JSON array arg. */
int views_add_summary(void *arg, const struct store_submission_row *row);

/* A leaderboard being built: views_leaderboard_new, views_add_leader for
 * each row (a store_leaderboard callback), views_leaderboard_take. */
struct views_leaderboard;
struct views_leaderboard *views_leaderboard_new(void);
int views_add_leader(void *arg, const struct store_leader_row *row);
/* The body {"problem", "version", "entries"} for v, or NULL when v is
 * NULL (the read failed); frees b either way. */
json_t *views_leaderboard_take(struct views_leaderboard *b, const struct store_problem_version *v);

/* The student accounts of a store_students read, copied, in its order. */
struct views_student {
    int64_t id;
    char *username, *student_id, *display_name; /* "" when unset; one allocation */
};
struct views_roster {
    struct views_student *st;
    size_t n, cap;
};
/* A store_students callback: appends u to the roster arg. 0 or -1. */
int views_roster_add(void *arg, const struct store_student *u);
/* Frees what the roster holds (not r itself). */
void views_roster_free(struct views_roster *r);

/* A score as the wide grades CSVs write it: at most two decimals, no
 * trailing zeros (100, 80, 16.67). */
void views_score_text(double v, char *buf, size_t len);

/* The grades CSV (RFC 4180, CRLF): views_grades_new writes the header,
 * views_add_grade a row (a store_grades callback), views_grades_take
 * returns the malloc'd NUL-terminated text and its length, or NULL if any
 * write failed; it frees c either way. */
struct views_csv;
/* An empty CSV text; views_csv_field appends a field (last: ends the row
 * with CRLF; 0 or -1 once anything failed); views_grades_take returns the
 * text. */
struct views_csv *views_csv_new(void);
int views_csv_field(struct views_csv *c, const char *v, bool last);
/* The wide grades CSVs (docs/api.md, "Grades"): the header
 * username,student_id,display_name,<slugs>,total, and a student's row of
 * n scores and their total. 0 or -1 once anything failed. */
int views_wide_header(struct views_csv *c, const char *const *slugs, size_t n);
int views_wide_row(struct views_csv *c, const struct views_student *u, const double *scores,
                   size_t n);
struct views_csv *views_grades_new(void);
int views_add_grade(void *arg, const struct store_grade_row *row);
char *views_grades_take(struct views_csv *c, size_t *len);

#endif
