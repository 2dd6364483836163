/*
 * lti_outbox_store — the database side of the scores owed to LMSs
 * (docs/lti.md, "Grades back"): the graded resource links, the grades
 * they carry, and the outbox of score deliveries (migration 16: tables
 * lti_outbox, lti_lineitems).
 *
 * Every grade change is one outbox row with the next sequence number of
 * its (link, user); queuing a new one supersedes the older rows of the
 * same pair still waiting, so an LMS is only ever sent the newest grade,
 * in sequence order. A delivery is claimed with a lease like a judgement
 * (server/store.h, "Judge hosts"): a sender that dies leaves its claim to
 * run out, and another takes it. Same conventions as server/store.h: 0,
 * a positive STORE_* code, or -1 with store_error(s).
 */
#ifndef ATTNJUDGE_SERVER_LTI_OUTBOX_STORE_H
#define ATTNJUDGE_SERVER_LTI_OUTBOX_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "server/lti_store.h"
#include "server/store.h"

/* A resource link whose LMS takes scores (borrowed strings: valid during
 * the callback). */
struct lti_graded_link {
    int64_t id, platform_id;
    const char *kind; /* "problem" | "assignment" */
    const char *slug;
    const char *lineitems_url; /* "" when the launch gave none */
    const char *lineitem_url;  /* the launch's own line item, "" when none */
    const char *resource_link_id;
    const char *found_url; /* the line item found or created earlier, "" when none */
};

/* Every graded link, by id. Stops and returns -1 if fn does. */
int store_lti_graded_links(struct store *s, int (*fn)(void *arg, const struct lti_graded_link *l),
                           void *arg) MUST_CHECK;

/* The ids of the student accounts linked to platform_id, ascending. */
int store_lti_platform_students(struct store *s, int64_t platform_id,
                                int (*fn)(void *arg, int64_t user_id), void *arg) MUST_CHECK;

/* Each student's best judged score on problem slug (0..100). */
int store_lti_problem_best(struct store *s, const char *slug,
                           int (*fn)(void *arg, int64_t user_id, double score),
                           void *arg) MUST_CHECK;

/* The users with a submission queued or being judged for problem slug
 * (assignment false) or for a problem of assignment slug. */
int store_lti_in_flight(struct store *s, const char *slug, bool assignment,
                        int (*fn)(void *arg, int64_t user_id), void *arg) MUST_CHECK;

/* The newest grade queued for each user of link_id: fn(arg, user_id,
 * given, maximum). */
int store_lti_link_last(struct store *s, int64_t link_id,
                        int (*fn)(void *arg, int64_t user_id, double given, double maximum),
                        void *arg) MUST_CHECK;

/* A grade as an LMS is sent it (AGS 2.0 §3.4). */
struct lti_grade {
    double given, maximum; /* given NAN: nothing counts (0 if a grade was sent before) */
    const char *activity;  /* activityProgress */
    const char *grading;   /* gradingProgress */
};

/* Queues grade g of (link_id, user_id) when it differs from the newest one
 * queued, in one transaction: the next sequence number, a timestamp after
 * the previous one's (at least now), due now. *queued says whether it did. */
int store_lti_grade_put(struct store *s, int64_t link_id, int64_t user_id,
                        const struct lti_grade *g, int64_t now, bool *queued) MUST_CHECK;

/* One delivery as its sender reads it (strings copied). */
struct lti_delivery {
    int64_t id, link_id, platform_id, seq;
    double given, maximum;
    char activity[16], grading[16];
    int64_t timestamp;    /* ms */
    int attempts;         /* this one included */
    char sub[LTI_ID_LEN]; /* the user at the platform; "" when no longer linked */
    char kind[16], slug[80], resource_link_id[LTI_ID_LEN];
    char lineitems_url[LTI_URL_LEN], lineitem_url[LTI_URL_LEN], found_url[LTI_URL_LEN];
    char client_id[LTI_ID_LEN], token_url[LTI_URL_LEN];
};

/* Claims the next delivery due at now for holder (its lease: now +
 * lease_ms) into *d: 0, STORE_NOT_FOUND (none due) or -1. */
int store_lti_outbox_claim(struct store *s, const char *holder, int64_t now, int64_t lease_ms,
                           struct lti_delivery *d) MUST_CHECK;

/* Ends holder's claim of delivery id: state "delivered" (at now),
 * "pending" (again at next_try_at, error the reason) or "failed" (error
 * the reason). STORE_STALE when the claim is no longer holder's. */
int store_lti_outbox_end(struct store *s, int64_t id, const char *holder, const char *state,
                         const char *error, int64_t next_try_at, int64_t now) MUST_CHECK;

/* Hands every claimed delivery back (waiting, due as before): for a
 * single front end's start, when every claim is a previous run's. */
int store_lti_outbox_release(struct store *s) MUST_CHECK;

/* Records the line item found or created for link_id. */
int store_lti_lineitem_set(struct store *s, int64_t link_id, const char *url, double maximum,
                           int64_t now) MUST_CHECK;

/* One outbox row as instructors see it (borrowed strings). */
struct lti_outbox_row {
    int64_t id, link_id, seq;
    const char *kind, *slug, *user, *state, *last_error; /* last_error "" when none */
    double given, maximum;
    int64_t timestamp, next_try_at, delivered_at; /* ms; delivered_at 0 = not yet */
    int attempts;
};

/* The newest limit rows, of state (NULL: any). Stops and returns -1 if fn does. */
int store_lti_outbox_list(struct store *s, const char *state, int limit,
                          int (*fn)(void *arg, const struct lti_outbox_row *row),
                          void *arg) MUST_CHECK;

/* How many rows are in each state (fn once per state present). */
int store_lti_outbox_counts(struct store *s, int (*fn)(void *arg, const char *state, int64_t n),
                            void *arg) MUST_CHECK;

/* Makes failed delivery id due again at now: 0, or STORE_NOT_FOUND when
 * it is not a failed one or a newer grade of its (link, user) exists. */
int store_lti_outbox_retry(struct store *s, int64_t id, int64_t now) MUST_CHECK;

#endif
