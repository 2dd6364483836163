/*
 * store — the server's database: users, problems, the queue of
 * submissions and what judging recorded, on SQLite or PostgreSQL
 * (server/db.h; docs/postgresql.md). This header is the store's whole
 * public face; its sections follow the files that implement them
 * (server/store_*.c, over the private server/store_impl.h), and every
 * statement they run is in server/store_sql.def.
 *
 * A `struct store` is one connection and must be used by one thread at a
 * time: workers own one each, HTTP handlers borrow one from a store_pool.
 * Functions return 0 on success, a positive STORE_* code for an expected
 * outcome (not found, exists, ...), or -1 on a database error, with the
 * database's message in the connection's error buffer (store_error).
 * Times are milliseconds since the Unix epoch.
 */
#ifndef ATTNJUDGE_SERVER_STORE_H
#define ATTNJUDGE_SERVER_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

#define STORE_NOT_FOUND 1
#define STORE_EXISTS 2
#define STORE_FULL 3
#define STORE_STALE 4
#define STORE_USER_FULL 5
#define STORE_ERR_LEN 256
#define STORE_HOST_NAME_LEN 128
#define STORE_LEASE_MS_DEFAULT 30000

struct store;
struct store_pool;

/* ---- store.c: the connection, transactions, announcements and the pool ---- */

/* Opens a connection to the database url: "sqlite:PATH" or a bare PATH
 * (the file created if missing; WAL, foreign keys, a busy timeout and
 * synchronous NORMAL or FULL), or "postgresql://..." (server/db.h). */
struct store *store_open(const char *url, bool sync_full, char *err, size_t errlen) MUST_CHECK;

void store_close(struct store *s);

/* The message of the last failed call on s. */
const char *store_error(const struct store *s);

/* Whether the last failure on s was transient (SQLite busy, a PostgreSQL
 * connection lost or a lock wait timed out): try again later, an HTTP
 * answer of 503 rather than 500. */
bool store_error_transient(const struct store *s);

/* Whether a store call on this thread failed transiently since the last
 * clear (clear: start over). An HTTP request is served by one thread, so
 * its 500 can become a 503 without each handler asking. */
bool store_thread_transient(bool clear);

/* A fixed set of n connections for the HTTP threads; get blocks until one is
 * free, put returns it. */
struct store_pool *store_pool_new(const char *url, bool sync_full, int n, char *err,
                                  size_t errlen) MUST_CHECK;

struct store *store_pool_get(struct store_pool *p) MUST_CHECK;

void store_pool_put(struct store_pool *p, struct store *s);

void store_pool_free(struct store_pool *p);

/* Transactions, one writer at a time (server/db.h's db_begin: SQLite's
 * BEGIN IMMEDIATE, where writers queue on the busy timeout instead of
 * failing on a read-to-write upgrade; PostgreSQL's BEGIN with an advisory
 * lock that every writer takes). */
int store_begin(struct store *s) MUST_CHECK;

int store_commit(struct store *s) MUST_CHECK;

void store_rollback(struct store *s);

/* Announcements of new work (a submission queued, a rejudge, claims handed
 * back, a benchmark to run). On PostgreSQL the writes that make work
 * NOTIFY, and a connection that listens hears them from every process on
 * the database: store_queue_listen answers 1 and starts listening;
 * store_queue_wait waits up to timeout_ms and answers 1 (something was
 * announced), 0 (nothing) or -1. On SQLite nothing is announced (one
 * machine: the queue watches the write-ahead log): listen answers 0. */
int store_queue_listen(struct store *s) MUST_CHECK;

int store_queue_wait(struct store *s, int timeout_ms) MUST_CHECK;

/* ---- store_schema.c: the migrations ---- */

/* The schema version this program's migrations reach. */
int store_schema_latest(void);

/* Brings the schema to the newest version, one transaction per migration. */
int store_migrate(struct store *s) MUST_CHECK;

/* ---- store_users.c: accounts and sessions ---- */

struct store_user {
    int64_t id;
    char username[64];
    char role[16];             /* "student" | "instructor" */
    char pwhash[160];          /* crypto_pwhash_str output */
    bool must_change_password; /* set by a reset: change it before anything else */
    char display_name[128];    /* "" when unset */
    char student_id[64];       /* "" when unset */
};

/* Users and sessions. */
int store_user_create(struct store *s, const char *username, const char *pwhash, const char *role,
                      int64_t now, int64_t *id) MUST_CHECK;

int store_user_by_name(struct store *s, const char *username, struct store_user *u) MUST_CHECK;

int store_session_create(struct store *s, const char *token_hash, int64_t user_id, int64_t now,
                         int64_t expires_at) MUST_CHECK;

/* Finds the unexpired session's user (STORE_NOT_FOUND otherwise). */
int store_session_user(struct store *s, const char *token_hash, int64_t now,
                       struct store_user *u) MUST_CHECK;

int store_session_delete(struct store *s, const char *token_hash) MUST_CHECK;

int store_session_purge(struct store *s, int64_t now) MUST_CHECK;

/* Sets the user's password hash and must_change_password, and ends every
 * session of the user but keep_token_hash's (NULL: all), in one
 * transaction; *ended (may be NULL) counts the sessions ended. 0,
 * STORE_NOT_FOUND or -1. */
int store_user_set_password(struct store *s, int64_t user_id, const char *pwhash, bool must_change,
                            const char *keep_token_hash, int *ended) MUST_CHECK;

/* Sets a user's student id and display name (NULL clears). 0,
 * STORE_NOT_FOUND or -1. */
int store_user_set_names(struct store *s, const char *username, const char *student_id,
                         const char *display_name) MUST_CHECK;

/* A student account of a class list: a one-time password (hash), to be
 * changed at the first sign-in. 0, STORE_EXISTS or -1. Inside the
 * caller's transaction if one is open. */
int store_user_import(struct store *s, const char *username, const char *pwhash,
                      const char *student_id, const char *display_name, int64_t now) MUST_CHECK;

/* ---- store_problems.c: problems, their versions and states ---- */

/* One version of a problem, as recorded in the database. */
struct store_problem_version {
    int64_t problem_id;
    char slug[80];
    int version;
    int current_version; /* of the problem */
    char content_hash[80];
    char origin[16];    /* "directory" | "upload" */
    char state[12];     /* of the problem: "draft" | "published" | "archived" */
    int64_t publish_at; /* of the problem: ms since the epoch, 0 = none */
    bool has_package;   /* its files are in the database (store_problem_package) */
};

/* Problems. store_problem_versions calls cb for every (slug, version) known,
 * current versions flagged; stops and returns -1 if cb does. */
int store_problem_versions(struct store *s,
                           int (*cb)(void *arg, const struct store_problem_version *v),
                           void *arg) MUST_CHECK;

/* The current version of slug. */
int store_problem_current(struct store *s, const char *slug,
                          struct store_problem_version *v) MUST_CHECK;

/* Adds version (current + 1, or 1 for a new slug) inside the caller's
 * transaction; sets it current. create_only: STORE_EXISTS if slug exists. */
int store_problem_add_version(struct store *s, const char *slug, const char *title,
                              const char *content_hash, const char *origin, int64_t created_by,
                              bool create_only, int64_t now, int *version) MUST_CHECK;

/* The files of version (slug, version) as one package (package.c's
 * format), recorded inside the caller's transaction; STORE_NOT_FOUND if
 * there is no such version. */
int store_problem_set_package(struct store *s, const char *slug, int version, const void *data,
                              size_t len) MUST_CHECK;

/* The package of (slug, version) in *data (malloc'd, NUL-terminated, *len
 * bytes); STORE_NOT_FOUND if there is no such version or it has no package
 * (recorded before migration 11). */
int store_problem_package(struct store *s, const char *slug, int version, void **data,
                          size_t *len) MUST_CHECK;

/* Sets slug's state ("draft" | "published" | "archived") and publish_at
 * (ms; 0 = none). 0, STORE_NOT_FOUND or -1. */
int store_problem_set_state(struct store *s, const char *slug, const char *state,
                            int64_t publish_at) MUST_CHECK;

/* Deletes slug with its versions, hint openings and walkthrough date, in
 * one transaction, unless it has submissions: 0, STORE_NOT_FOUND,
 * STORE_EXISTS (it has submissions; nothing changed) or -1. */
int store_problem_delete(struct store *s, const char *slug) MUST_CHECK;

/* ---- store_queue.c: the queue, benchmarks, judge hosts and leases ---- */

/* A submission claimed by a worker; source is malloc'd (store_claim_free). */
struct store_claim {
    int64_t id;
    int64_t claim; /* guards the result write against a stale claim */
    char slug[80];
    int version;
    char *source;
    size_t source_len;
    int64_t queued_at;
    int retries; /* earlier claims given back after a judge-side resource failure */
};

/* Admission limits of store_submission_create. */
struct store_queue_limits {
    int64_t total;    /* queued submissions in all (STORE_FULL) */
    int64_t per_user; /* one user's queued + judging ones (STORE_USER_FULL) */
};

/* One queued submission in predicted claim order (store_queue_order). */
struct store_queue_entry {
    int64_t id, user_id;
    int64_t retry_at; /* not claimed before (a back-off), or 0 */
};

struct store_result {
    const char *verdict;
    double score;   /* 0..100 */
    double time_ms; /* sum of the tests' CPU time */
    double compile_ms;
    const char *report_json;      /* judge_report_json text */
    const char *internal_message; /* operator-only, may be NULL */
    bool bench;                   /* accepted and to be benchmarked: its benchmark is queued */
    /* the benchmarks one user may have waiting (0: no cap); a first verdict
     * beyond it queues none (store_submission_finish) */
    int bench_user_max;
};

/* Submissions. create answers STORE_USER_FULL when the user already has
 * lim->per_user submissions queued or judging, STORE_FULL when lim->total
 * are queued. */
int store_submission_create(struct store *s, int64_t user_id, const char *slug, const char *source,
                            size_t len, const struct store_queue_limits *lim, int64_t now,
                            int64_t *id, int *version);

/* Claims the next queued submission whose retry_at has passed
 * (STORE_NOT_FOUND when none), round-robin across users: the user with the
 * fewest submissions judging, then the one whose last claim is oldest, and
 * that user's oldest submission. So a user who queued ten cannot delay one
 * who queued one. */
int store_submission_claim(struct store *s, int64_t now, struct store_claim *c) MUST_CHECK;

void store_claim_free(struct store_claim *c);

/* Judge hosts and leases (docs/operations.md, "Judge hosts"). Every claim
 * made on connection s names its holder, name (NULL: none), and holds a
 * lease of lease_ms from the claim's time (STORE_LEASE_MS_DEFAULT until
 * this is called). The holder renews its leases with store_host_beat. */
void store_set_holder(struct store *s, const char *name, int64_t lease_ms);

/* A process that judges, as its heartbeat records it. */
struct store_host {
    char name[STORE_HOST_NAME_LEN]; /* unique per process: hostname/pid/random */
    char hostname[64];
    int64_t pid;
    int workers, busy;           /* judging threads, and how many judge now */
    int64_t started_at, seen_at; /* ms */
    /* its judging counters as JSON (metrics_judging_json), as of seen_at;
     * NULL: none. Read by store_hosts: valid during the callback only. */
    const char *stats;
};

/* The heartbeat of host h (h->name is s's holder): records it as seen now
 * with its load, and renews the lease of every claim it holds to now +
 * lease_ms, in one transaction. 0 or -1. */
int store_host_beat(struct store *s, const struct store_host *h, int64_t now) MUST_CHECK;

/* Hands every claim whose lease ran out before now back to the queue (a
 * verdict's: `queued`; a benchmark's: `pending`), counting them. */
int store_leases_expire(struct store *s, int64_t now, int *judging, int *benchmarks) MUST_CHECK;

/* Hands back every claim held by name (a holder known to be dead, or
 * this process leaving), counting them. */
int store_leases_release(struct store *s, const char *name, int *judging,
                         int *benchmarks) MUST_CHECK;

/* The hosts whose last heartbeat is at or after seen_since (ms), by name.
 * Stops and returns -1 if fn does. */
int store_hosts(struct store *s, int64_t seen_since,
                int (*fn)(void *arg, const struct store_host *h), void *arg) MUST_CHECK;

/* Forgets host name (it left). */
int store_host_remove(struct store *s, const char *name) MUST_CHECK;

/* Benchmarks (docs/performance.md). Claims the next waiting benchmark,
 * round-robin across users (the user whose benchmark last ran longest ago,
 * then that user's oldest), unless a benchmark is running already (one at
 * a time: two timings never share the machine); c->claim is then the
 * benchmark's own claim number. Returns 0, STORE_NOT_FOUND or -1. */
int store_bench_claim(struct store *s, int64_t now, struct store_claim *c) MUST_CHECK;

/* The waiting benchmarks in the order repeated store_bench_claim calls
 * would take them if nothing else changed (retry_at 0): *out is malloc'd
 * (free), *n its length. 0 or -1. */
int store_bench_order(struct store *s, struct store_queue_entry **out, size_t *n) MUST_CHECK;

/* Records key (judge/poolkey.h; NULL: none) as submission id's pool key,
 * then finds the figures of an earlier submission of the same key, or the
 * same source, to the same problem version (measured once, then shared),
 * ranked ones first. Returns 0 with *report (free) and *ms (NAN: not
 * ranked), STORE_NOT_FOUND, or -1. */
int store_bench_pooled(struct store *s, int64_t id, const char *key, char **report,
                       double *ms) MUST_CHECK;

/* Ends benchmark claim (id, claim): status "done" or "failed", the
 * report's text, the geometric mean (NAN: not ranked) and, when the
 * benchmark overturned the verdict, the new verdict (else NULL).
 * Returns 0, STORE_STALE (claimed again meanwhile) or -1. */
int store_bench_finish(struct store *s, int64_t id, int64_t claim, const char *status,
                       const char *report, double ms, const char *verdict) MUST_CHECK;

/* Hands a running benchmark back to the waiting ones: (id, claim), or
 * every running one when id is 0 (start-up). *count (may be NULL) gets
 * how many. Returns 0 or -1. */
int store_bench_requeue(struct store *s, int64_t id, int64_t claim, int *count) MUST_CHECK;

/* Sets a judging submission's progress: text is a JSON object (the queue's
 * {"stage", ...}), served back as that object. */
int store_submission_progress(struct store *s, int64_t id, int64_t claim,
                              const char *text) MUST_CHECK;

/* Records a verdict in one transaction; STORE_STALE if the claim is gone.
 * With r->bench, the submission's benchmark waits; on its first verdict it
 * also replaces its author's older waiting benchmarks of the same problem
 * (they then show "superseded"), and is itself skipped when its author
 * already has r->bench_user_max others waiting (docs/performance.md). */
int store_submission_finish(struct store *s, int64_t id, int64_t claim, int64_t now,
                            const struct store_result *r) MUST_CHECK;

/* Puts `judging` rows (all, or one claim) back in the queue. */
int store_submission_requeue(struct store *s, int64_t id, int64_t claim, int *count) MUST_CHECK;

/* Gives a claim back after a judge-side resource failure: queued again,
 * not claimed before retry_at, retries + 1. STORE_STALE if the claim is gone. */
int store_submission_retry(struct store *s, int64_t id, int64_t claim, int64_t retry_at) MUST_CHECK;

/* Cancels a queued submission (status `cancelled`, no verdict). owner_id:
 * its author, or 0 for anyone's. STORE_NOT_FOUND if it does not exist or
 * is someone else's; STORE_STALE if it is no longer queued. status (len
 * bytes) receives its status afterwards ("cancelled", or the one that
 * prevented it). */
int store_submission_cancel(struct store *s, int64_t id, int64_t owner_id, char *status,
                            size_t len) MUST_CHECK;

/* Number of queued and judging submissions. */
int store_queue_depth(struct store *s, int64_t *queued, int64_t *judging) MUST_CHECK;

/* Every queued submission in the order repeated claims would take them if
 * no judgement ended and nothing new arrived (so [0] is claimed next), as
 * a new array of *n entries (caller frees; NULL when empty). */
int store_queue_order(struct store *s, struct store_queue_entry **out, size_t *n) MUST_CHECK;

/* Submissions being judged, and the mean judging time of the last 50
 * verdicts (ms; 0 when there are none). */
int store_queue_stats(struct store *s, int64_t *judging, double *mean_judge_ms) MUST_CHECK;

/* ---- store_results.c: submissions as read, rejudges, leaderboards, grades, sources ---- */

struct store_list_filter {
    int64_t user_id;      /* 0 = any */
    const char *slug;     /* NULL = any */
    const char *username; /* NULL = any */
    const char *verdict;  /* NULL = any */
    const char *status;   /* NULL = any */
    int64_t before_id;    /* 0 = newest */
    int limit;
};

/* A submission as read by store_submission_get / store_submission_list.
 * Strings are borrowed: valid only during the callback. A nullable REAL
 * column reads as NAN when NULL; a time as 0. */
struct store_submission_row {
    int64_t id;
    int64_t user_id;     /* the author */
    const char *problem; /* slug */
    int problem_version;
    const char *user;              /* the author's username */
    const char *status;            /* queued | judging | done | cancelled */
    const char *progress;          /* NULL when none */
    const char *verdict;           /* NULL until done */
    double score;                  /* 0..100, NAN until done */
    double time_ms;                /* NAN until done */
    double compile_ms;             /* NAN until done (get only) */
    int64_t created_at, judged_at; /* ms since the epoch; 0 = not yet */
    const char *report;            /* judge_report_json text or NULL (get only) */
    const char *source;            /* NULL in a list */
    size_t source_len;             /* bytes */
    int hints_opened;              /* hints the author had opened on the problem when submitting */
    const char *bench_status;      /* NULL, pending, running, done, failed (get only) */
    const char *bench_report;      /* bench_report_json text or NULL (get only) */
};

/* One leaderboard row (borrowed strings, as above). */
struct store_leader_row {
    const char *user;
    const char *display_name; /* NULL when unset */
    double time_ms;
    int64_t submission_id;
    int64_t created_at;       /* ms */
    double bench_ms;          /* the benchmark's geometric mean, NAN when not measured */
    const char *bench_report; /* its report's text, NULL when none */
};

/* One grades row: a student's best score on a problem. */
struct store_grade_row {
    const char *user, *problem;
    double best_score;
    int64_t created_at; /* ms, of the best submission */
};

/* store_submission_get and store_submission_list call fn with one row per
 * submission; stop and return -1 if fn does. */
typedef int store_submission_fn(void *arg, const struct store_submission_row *row);

/* The submission id (STORE_NOT_FOUND if none), with its source and report. */
int store_submission_get(struct store *s, int64_t id, store_submission_fn *fn,
                         void *arg) MUST_CHECK;

/* Summaries (no source, no report) matching f, newest first. */
int store_submission_list(struct store *s, const struct store_list_filter *f,
                          store_submission_fn *fn, void *arg) MUST_CHECK;

/* Requeues every submission of slug (submission_id 0; cancelled ones
 * stay cancelled), or the one judged submission submission_id (slug
 * unused), against the problem's current version, recording what each had
 * (a rejudge, *rejudge_id; requested_by 0: nobody). 0 with *count,
 * STORE_NOT_FOUND, STORE_STALE (the submission is not judged: queued,
 * judging or cancelled), or -1. */
int store_rejudge(struct store *s, const char *slug, int64_t submission_id, int64_t requested_by,
                  int64_t now, int *count, int64_t *rejudge_id) MUST_CHECK;

/* Best accepted submission per user on slug's current version (*v), fastest
 * first, at most limit rows; STORE_NOT_FOUND for an unknown slug. Stops and
 * returns -1 if fn does. */
int store_leaderboard(struct store *s, const char *slug, int limit, struct store_problem_version *v,
                      int (*fn)(void *arg, const struct store_leader_row *row),
                      void *arg) MUST_CHECK;

/* Each student's best score per problem, by username then slug. Stops and
 * returns -1 if fn does. */
int store_grades(struct store *s, int (*fn)(void *arg, const struct store_grade_row *row),
                 void *arg) MUST_CHECK;

/* A judgement of a submission: its status ("queued", "judging", "done"),
 * verdict ("" while none), score (NAN while none) and problem version. */
struct store_judgement {
    char status[16];
    char verdict[32];
    double score;
    int version;
};

struct store_rejudge {
    int64_t id;
    char slug[80];
    int64_t submission_id; /* 0: the whole problem */
    char requested_by[64]; /* "" if unknown */
    int64_t requested_at;
    int count;
};

/* A submission a rejudge took: before it, and after — the row now, or
 * what the next rejudge of the same submission found (superseded_by its
 * id, else 0). */
struct store_rejudge_item {
    int64_t submission_id;
    char username[64];
    struct store_judgement before, after;
    int64_t superseded_by;
};

/* A judgement a rejudge replaced. */
struct store_history_row {
    int64_t rejudge_id;
    int64_t replaced_at; /* the rejudge's time */
    struct store_judgement was;
    double time_ms; /* NAN if none */
    int64_t judged_at;
};

/* Rejudge id (*head) and each submission it took, in id order; 0,
 * STORE_NOT_FOUND or -1 (also when fn returns -1). */
int store_rejudge_get(struct store *s, int64_t id, struct store_rejudge *head,
                      int (*fn)(void *arg, const struct store_rejudge_item *item),
                      void *arg) MUST_CHECK;

/* The newest limit rejudges, newest first. */
int store_rejudge_list(struct store *s, int limit,
                       int (*fn)(void *arg, const struct store_rejudge *r), void *arg) MUST_CHECK;

/* The judgements rejudges replaced of submission id, oldest first. */
int store_submission_history(struct store *s, int64_t id,
                             int (*fn)(void *arg, const struct store_history_row *row),
                             void *arg) MUST_CHECK;

/* A student's chosen submission of a problem (borrowed strings). */
struct store_source_row {
    const char *user, *verdict, *source;
    size_t len;
    int64_t submission_id, created_at;
};

/* Per student (by username), their last accepted submission of slug, else
 * their last one; cancelled ones are never chosen. */
int store_problem_sources(struct store *s, const char *slug,
                          int (*fn)(void *arg, const struct store_source_row *row),
                          void *arg) MUST_CHECK;

/* ---- store_course.c: hints, walkthroughs, assignments, students, drafts (docs/api.md) ---- */

/* One opened hint (borrowed strings, as above). */
struct store_hint_row {
    const char *user; /* who opened it */
    int n;            /* 1 = the first hint */
    int problem_version;
    int64_t opened_at; /* ms */
};

/* What decides whether a user sees a problem's walkthrough. */
struct store_walkthrough {
    bool date_set;    /* an instructor set a date (it overrides the package's default) */
    int64_t opens_at; /* ms; 0 = no date (or none set) */
    bool accepted;    /* the user has an accepted submission for the problem (any version) */
};

/* Records that user_id opened hint n of slug (then at version), in order:
 * n must be one already opened or the next one (the user's opened hints
 * are always 1..k). Returns 0 with *opened_at (when it was first opened;
 * now if by this call) and *opened (k after the call); STORE_STALE when n
 * is past the next one (*opened = k); STORE_NOT_FOUND for an unknown slug.
 * The caller checks that the version has a hint n. */
int store_hint_open(struct store *s, int64_t user_id, const char *slug, int version, int n,
                    int64_t now, int64_t *opened_at, int *opened) MUST_CHECK;

/* The hints opened on slug, by username then n: user_id's only, or
 * everyone's with 0. Stops and returns -1 if fn does. */
int store_hint_opens(struct store *s, const char *slug, int64_t user_id,
                     int (*fn)(void *arg, const struct store_hint_row *row), void *arg) MUST_CHECK;

/* The walkthrough's date for slug and whether user_id (0: nobody) has an
 * accepted submission for it; STORE_NOT_FOUND for an unknown slug. */
int store_walkthrough(struct store *s, const char *slug, int64_t user_id,
                      struct store_walkthrough *w) MUST_CHECK;

/* Sets slug's walkthrough date (ms; 0 = no date, acceptance alone
 * unlocks), replacing any earlier one and the package's default;
 * STORE_NOT_FOUND for an unknown slug. */
int store_walkthrough_set(struct store *s, const char *slug, int64_t opens_at, int64_t by,
                          int64_t now) MUST_CHECK;

struct store_assignment {
    int64_t id;
    char slug[80];
    char title[256];
    int64_t opens_at, due_at, cutoff_at; /* ms; cutoff_at == due_at: no late work */
    double penalty_per_day;              /* fraction of the score per started day late */
};

struct store_student {
    int64_t id;
    const char *username, *student_id, *display_name; /* "" when unset */
};

/* A judged submission inside an assignment's window. */
struct store_window_row {
    int64_t id, user_id;
    const char *problem; /* slug */
    double score;        /* NAN if none */
    int64_t created_at;
    const char *verdict;
};

/* Creates (old_slug NULL) or replaces the assignment old_slug with a and
 * its problems (slugs, in order), in one transaction. 0, STORE_EXISTS
 * (a->slug is another assignment's), STORE_NOT_FOUND (old_slug unknown, or
 * a problem: its slug in bad_problem, else ""), or -1. */
int store_assignment_put(struct store *s, const char *old_slug, const struct store_assignment *a,
                         const char *const *problems, size_t n, int64_t by, int64_t now,
                         char *bad_problem, size_t bad_len) MUST_CHECK;

/* The assignment slug, and (fn non-NULL) its problems' slugs in order. */
int store_assignment_get(struct store *s, const char *slug, struct store_assignment *a,
                         int (*fn)(void *arg, const char *slug), void *arg) MUST_CHECK;

int store_assignment_problems(struct store *s, int64_t id, int (*fn)(void *arg, const char *slug),
                              void *arg) MUST_CHECK;

/* Every assignment, by due time. */
int store_assignment_list(struct store *s, int (*fn)(void *arg, const struct store_assignment *a),
                          void *arg) MUST_CHECK;

int store_assignment_delete(struct store *s, const char *slug) MUST_CHECK;

/* Every student account (only: that one user, 0 = all), by username. */
int store_students(struct store *s, int64_t only,
                   int (*fn)(void *arg, const struct store_student *u), void *arg) MUST_CHECK;

/* The judged submissions to a's problems made in [opens_at, cutoff_at],
 * of user_id (0: everyone). */
int store_assignment_submissions(struct store *s, const struct store_assignment *a, int64_t user_id,
                                 int (*fn)(void *arg, const struct store_window_row *row),
                                 void *arg) MUST_CHECK;

struct store_draft {
    char *source; /* malloc'd (store_draft_free) */
    size_t len;
    int64_t revision, updated_at;
};

/* The user's draft of slug: 0 (d filled), STORE_NOT_FOUND or -1. */
int store_draft_get(struct store *s, int64_t user_id, const char *slug,
                    struct store_draft *d) MUST_CHECK;

/* Saves the user's draft of slug (an existing problem: the caller checks)
 * if its stored revision is seen_revision (0: any); *revision is the new
 * one. 0, STORE_STALE (a newer revision is stored) or -1. */
int store_draft_put(struct store *s, int64_t user_id, const char *slug, const char *source,
                    size_t len, int64_t seen_revision, int64_t now, int64_t *revision) MUST_CHECK;

int store_draft_delete(struct store *s, int64_t user_id, const char *slug) MUST_CHECK;

void store_draft_free(struct store_draft *d);

#endif
