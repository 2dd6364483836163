/*
 * store — theory of operation.
 *
 * Backends: every statement runs through server/db.h, on SQLite or
 * PostgreSQL (docs/postgresql.md). sql[] holds one text per statement;
 * sql_pg[] the few PostgreSQL spellings that must differ, and
 * pg_migrations[] the schema's migrations for PostgreSQL, numbered as
 * migrations[] so that one schema_version serves both. What follows says
 * SQLite where the backends differ; on PostgreSQL a write transaction takes
 * an advisory lock (one writer at a time, as on SQLite) and the claims run
 * side by side with FOR UPDATE SKIP LOCKED.
 *
 * The database is the server's memory and its queue: users, hashed session
 * tokens, problems and their immutable versions, submissions with their
 * source, status and verdict, and per-test results. Nothing about a
 * submission lives only in RAM, so a crash loses nothing.
 *
 * Concurrency: SQLite in WAL mode lets readers run beside one writer. Each
 * thread uses its own connection (workers own one, HTTP threads borrow from
 * a pool), because a connection is not to be shared without serialization.
 * Every write that changes more than one row runs in BEGIN IMMEDIATE ...
 * COMMIT: the write lock is taken up front, so two writers wait on the busy
 * timeout instead of deadlocking on a read-to-write upgrade.
 *
 * The queue: a worker claims a `queued` row with one UPDATE ... RETURNING
 * that also increments `claim`. Which row is round-robin across users (the
 * user with the fewest rows judging, then the one served longest ago per
 * queue_turns, then that user's oldest row), so one user's many rows cannot
 * delay another's one; Q_QUEUE_ORDER predicts that order for the API's
 * queue positions. The verdict is written only if the row is still
 * `judging` with that claim, so a result from a claim that was taken back
 * (SIGTERM, rejudge, a resource failure's retry, an expired lease) is
 * discarded rather than recorded twice; `judgements` counts the verdicts
 * recorded, for the crash test. A row given back after a judge-side
 * resource failure waits until `retry_at`; a `cancelled` row is never
 * claimed.
 *
 * Judge hosts (migration 10): a claim records its holder (`claimed_by`,
 * the connection's store_set_holder) and a lease (`lease_until`); the
 * holder's heartbeat (store_host_beat) renews every lease it holds in one
 * statement, and store_leases_expire hands back the claims whose holder
 * stopped beating. Benchmark claims carry the same pair of their own.
 *
 * Schema changes are numbered migrations applied in order, one transaction
 * each, with the reached version in table schema_version.
 */
#include "server/store.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db.h"
#include "util/array.h"

enum q {
    Q_USER_INSERT,
    Q_USER_BY_NAME,
    Q_SESSION_INSERT,
    Q_SESSION_USER,
    Q_SESSION_DELETE,
    Q_SESSION_PURGE,
    Q_PROBLEM_VERSIONS,
    Q_PROBLEM_CURRENT,
    Q_PROBLEM_BY_SLUG,
    Q_PROBLEM_INSERT,
    Q_PROBLEM_SET_CURRENT,
    Q_VERSION_INSERT,
    Q_VERSION_SET_PACKAGE,
    Q_VERSION_PACKAGE,
    Q_QUEUED_COUNT,
    Q_USER_ACTIVE,
    Q_SUB_INSERT,
    Q_SUB_CLAIM,
    Q_TURN_SERVED,
    Q_SLUG_BY_ID,
    Q_SUB_PROGRESS,
    Q_SUB_FINISH,
    Q_SUB_REQUEUE_ALL,
    Q_SUB_REQUEUE_ONE,
    Q_SUB_RETRY,
    Q_SUB_CANCEL,
    Q_SUB_STATUS,
    Q_SUB_GET,
    Q_REJUDGE,
    Q_DEPTH,
    Q_QUEUE_ORDER,
    Q_MEAN_JUDGE,
    Q_LEADERBOARD,
    Q_GRADES,
    Q_HINT_COUNT,
    Q_HINT_GET,
    Q_HINT_INSERT,
    Q_HINT_LIST,
    Q_WALK_GET,
    Q_WALK_SET,
    Q_PROBLEM_SET_STATE,
    Q_PROBLEM_SUBMISSIONS,
    Q_PROBLEM_DELETE,
    Q_USER_SET_PASSWORD,
    Q_SESSIONS_END,
    Q_REJUDGE_ONE,
    Q_SUB_PROBLEM,
    Q_REJUDGE_RECORD,
    Q_REJUDGE_COUNT,
    Q_REJUDGE_ITEMS,
    Q_REJUDGE_ITEM_ONE,
    Q_REJUDGE_HEAD,
    Q_REJUDGE_REPORT,
    Q_REJUDGE_LIST,
    Q_SUB_HISTORY,
    Q_ASSIGNMENT_INSERT,
    Q_ASSIGNMENT_UPDATE,
    Q_ASSIGNMENT_PROBLEMS_CLEAR,
    Q_ASSIGNMENT_PROBLEM_ADD,
    Q_ASSIGNMENT_GET,
    Q_ASSIGNMENT_LIST,
    Q_ASSIGNMENT_PROBLEMS,
    Q_ASSIGNMENT_DELETE,
    Q_STUDENTS,
    Q_ASSIGNMENT_SUBMISSIONS,
    Q_USER_SET_NAMES,
    Q_USER_IMPORT,
    Q_DRAFT_GET,
    Q_DRAFT_PUT,
    Q_DRAFT_DELETE,
    Q_PROBLEM_SOURCES,
    Q_BENCH_CLAIM,
    Q_BENCH_POOL,
    Q_BENCH_FINISH,
    Q_BENCH_REQUEUE,
    Q_HOST_BEAT,
    Q_LEASE_RENEW,
    Q_BENCH_LEASE_RENEW,
    Q_LEASE_EXPIRE,
    Q_BENCH_LEASE_EXPIRE,
    Q_LEASE_RELEASE,
    Q_BENCH_LEASE_RELEASE,
    Q_HOSTS,
    Q_HOST_REMOVE,
    Q_COUNT
};

/* The hints a submission's author had opened on its problem when submitting
 * (a column of the submission reads). */
#define HINTS_BEFORE                                                                               \
    "(SELECT count(*) FROM hint_opens h WHERE h.user_id = s.user_id"                               \
    " AND h.problem_id = s.problem_id AND h.opened_at <= s.created_at)"

static const char *const sql[Q_COUNT] = {
    [Q_USER_INSERT] = "INSERT INTO users(username, pwhash, role, created_at) VALUES (?,?,?,?)"
                      " RETURNING id",
    [Q_USER_BY_NAME] = "SELECT id, username, role, pwhash, must_change_password,"
                       " coalesce(display_name, ''), coalesce(student_id, '')"
                       " FROM users WHERE username = ?",
    [Q_SESSION_INSERT] =
        "INSERT INTO sessions(token_hash, user_id, created_at, expires_at) VALUES (?,?,?,?)",
    [Q_SESSION_USER] = "SELECT u.id, u.username, u.role, u.pwhash, u.must_change_password,"
                       " coalesce(u.display_name, ''), coalesce(u.student_id, '')"
                       " FROM sessions s JOIN users u ON u.id = s.user_id"
                       " WHERE s.token_hash = ? AND s.expires_at > ?",
    [Q_SESSION_DELETE] = "DELETE FROM sessions WHERE token_hash = ?",
    [Q_SESSION_PURGE] = "DELETE FROM sessions WHERE expires_at <= ?",
    [Q_PROBLEM_VERSIONS] =
        "SELECT p.id, p.slug, v.version, p.current_version, v.content_hash, v.origin, p.state,"
        " coalesce(p.publish_at, 0), CASE WHEN v.package IS NULL THEN 0 ELSE 1 END"
        " FROM problem_versions v JOIN problems p ON p.id = v.problem_id ORDER BY p.slug, "
        "v.version",
    [Q_PROBLEM_CURRENT] =
        "SELECT p.id, p.slug, v.version, p.current_version, v.content_hash, v.origin, p.state,"
        " coalesce(p.publish_at, 0), CASE WHEN v.package IS NULL THEN 0 ELSE 1 END"
        " FROM problems p JOIN problem_versions v ON v.problem_id = p.id"
        " AND v.version = p.current_version WHERE p.slug = ?",
    [Q_PROBLEM_BY_SLUG] = "SELECT id, current_version FROM problems WHERE slug = ?",
    [Q_PROBLEM_INSERT] =
        "INSERT INTO problems(slug, current_version, created_at, state) VALUES (?, 0, ?, ?)"
        " RETURNING id",
    [Q_PROBLEM_SET_CURRENT] = "UPDATE problems SET current_version = ? WHERE id = ?",
    [Q_VERSION_INSERT] =
        "INSERT INTO problem_versions(problem_id, version, title, content_hash, origin,"
        " created_by, created_at) VALUES (?,?,?,?,?,?,?)",
    [Q_VERSION_SET_PACKAGE] = "UPDATE problem_versions SET package = ? WHERE version = ?"
                              " AND problem_id = (SELECT id FROM problems WHERE slug = ?)",
    [Q_VERSION_PACKAGE] = "SELECT v.package FROM problem_versions v JOIN problems p"
                          " ON p.id = v.problem_id WHERE p.slug = ? AND v.version = ?",
    [Q_QUEUED_COUNT] = "SELECT count(*) FROM submissions WHERE status = 'queued'",
    [Q_USER_ACTIVE] = "SELECT count(*) FROM submissions WHERE user_id = ?"
                      " AND status IN ('queued', 'judging')",
    [Q_SUB_INSERT] = "INSERT INTO submissions(user_id, problem_id, problem_version, source, status,"
                     " created_at, queued_at) VALUES (?,?,?,?,'queued',?,?) RETURNING id",
    /* Round-robin across users: the next submission is the oldest queued
     * one of the user with the fewest submissions being judged, and among
     * those the user served longest ago (queue_turns). QUEUE_ORDER below
     * predicts the same order for every queued row; keep them in step. */
    [Q_SUB_CLAIM] =
        "UPDATE submissions SET status = 'judging', claim = claim + 1, started_at = ?1,"
        " progress = NULL, claimed_by = ?2, lease_until = ?1 + ?3"
        " WHERE id = (SELECT s.id FROM submissions s"
        "   LEFT JOIN queue_turns t ON t.user_id = s.user_id"
        "   WHERE s.status = 'queued' AND s.retry_at <= ?1"
        "   ORDER BY (SELECT count(*) FROM submissions j"
        "     WHERE j.user_id = s.user_id AND j.status = 'judging'),"
        "   coalesce(t.served_at, 0), s.queued_at, s.id LIMIT 1)"
        " RETURNING id, claim, problem_id, problem_version, source, queued_at, user_id, retries",
    [Q_TURN_SERVED] = "INSERT INTO queue_turns(user_id, served_at) VALUES (?, ?)"
                      " ON CONFLICT(user_id) DO UPDATE SET served_at = excluded.served_at",
    [Q_SLUG_BY_ID] = "SELECT slug FROM problems WHERE id = ?",
    [Q_SUB_PROGRESS] =
        "UPDATE submissions SET progress = ? WHERE id = ? AND claim = ? AND status = 'judging'",
    [Q_SUB_FINISH] =
        "UPDATE submissions SET status = 'done', progress = NULL, verdict = ?, score = ?,"
        " time_ms = ?, compile_ms = ?, report = ?, internal_message = ?, judged_at = ?,"
        " judgements = judgements + 1, bench_status = CASE WHEN ? <> 0 THEN 'pending' END,"
        " bench_report = NULL, bench_ms = NULL"
        " WHERE id = ? AND claim = ? AND status = 'judging'",
    [Q_SUB_REQUEUE_ALL] =
        "UPDATE submissions SET status = 'queued', progress = NULL, started_at = NULL"
        " WHERE status = 'judging'",
    [Q_SUB_REQUEUE_ONE] =
        "UPDATE submissions SET status = 'queued', progress = NULL, started_at = NULL"
        " WHERE status = 'judging' AND id = ? AND claim = ?",
    /* A judge-side resource failure: back in the queue, not before retry_at. */
    [Q_SUB_RETRY] = "UPDATE submissions SET status = 'queued', progress = NULL, started_at = NULL,"
                    " retry_at = ?, retries = retries + 1"
                    " WHERE status = 'judging' AND id = ? AND claim = ?",
    [Q_SUB_CANCEL] = "UPDATE submissions SET status = 'cancelled', progress = NULL"
                     " WHERE id = ? AND status = 'queued'",
    [Q_SUB_STATUS] = "SELECT user_id, status FROM submissions WHERE id = ?",
    [Q_SUB_GET] =
        "SELECT s.id, p.slug, s.problem_version, u.username, s.status, s.progress, s.verdict,"
        " s.score, s.time_ms, s.compile_ms, s.created_at, s.judged_at, s.report, s.source,"
        " s.user_id, " HINTS_BEFORE ", s.bench_status, s.bench_report"
        " FROM submissions s JOIN problems p ON p.id = s.problem_id"
        " JOIN users u ON u.id = s.user_id WHERE s.id = ?",
    /* A cancelled submission stays cancelled: its author withdrew it. */
    [Q_REJUDGE] =
        "UPDATE submissions SET status = 'queued', problem_version = ?, progress = NULL,"
        " verdict = NULL, score = NULL, time_ms = NULL, compile_ms = NULL, report = NULL,"
        " internal_message = NULL, started_at = NULL, judged_at = NULL, queued_at = ?,"
        " retry_at = 0, retries = 0, bench_status = NULL, bench_report = NULL, bench_ms = NULL"
        " WHERE problem_id = ? AND status != 'cancelled'",
    [Q_DEPTH] = "SELECT (SELECT count(*) FROM submissions WHERE status = 'queued'),"
                " (SELECT count(*) FROM submissions WHERE status = 'judging')",
    /* The order in which repeated claims (Q_SUB_CLAIM) take the queued rows
     * if nothing else changes. A claim picks the user with the fewest rows
     * judging, then the one served longest ago, and raises that user's
     * count and served time; so a user with b rows judging gets its j-th
     * queued row (0-based) at "level" b + j, every level is served before
     * the next, and within a level users who joined at a higher b go first
     * (their served time is older than any claim made meanwhile), then by
     * served time and oldest queued row, the claim's own tie-breakers. */
    [Q_QUEUE_ORDER] =
        "SELECT id, user_id, retry_at FROM (SELECT s.id, s.user_id, s.retry_at,"
        "   row_number() OVER w - 1 AS j, first_value(s.queued_at) OVER w AS head_at,"
        "   first_value(s.id) OVER w AS head_id,"
        "   (SELECT count(*) FROM submissions b"
        "     WHERE b.user_id = s.user_id AND b.status = 'judging') AS busy,"
        "   coalesce((SELECT served_at FROM queue_turns t WHERE t.user_id = s.user_id), 0)"
        "     AS served"
        "   FROM submissions s WHERE s.status = 'queued'"
        "   WINDOW w AS (PARTITION BY s.user_id ORDER BY s.queued_at, s.id)) AS q"
        " ORDER BY busy + j, busy DESC, served, head_at, head_id",
    /* "+status": walk the rows newest first by id and stop after 50 verdicts,
     * rather than sort every verdict ever recorded through the status index. */
    [Q_MEAN_JUDGE] =
        "SELECT (SELECT count(*) FROM submissions WHERE status = 'judging'),"
        " (SELECT avg(judged_at - started_at) FROM (SELECT judged_at, started_at FROM submissions"
        "   WHERE +status = 'done' AND started_at IS NOT NULL ORDER BY id DESC LIMIT 50)"
        "   AS recent)",
    /* Each student's best accepted submission: by the benchmark's
     * geometric mean where measured (docs/performance.md), the ones not
     * (yet) measured after them by the tests' CPU time. */
    [Q_LEADERBOARD] =
        "SELECT u.username, b.time_ms, b.id, b.created_at, u.display_name, b.bench_ms,"
        " b.bench_report FROM"
        " (SELECT id, user_id, time_ms, created_at, bench_ms, bench_report, row_number() OVER"
        "   (PARTITION BY user_id ORDER BY bench_ms IS NULL, bench_ms, time_ms, id) AS rn"
        "   FROM submissions WHERE problem_id = ? AND problem_version = ? AND status = 'done'"
        "   AND verdict = 'accepted') b"
        " JOIN users u ON u.id = b.user_id WHERE b.rn = 1"
        " ORDER BY b.bench_ms IS NULL, b.bench_ms, b.time_ms, b.id LIMIT ?",
    [Q_GRADES] =
        "SELECT u.username, p.slug, b.score, b.created_at FROM"
        " (SELECT user_id, problem_id, score, created_at, row_number() OVER"
        "   (PARTITION BY user_id, problem_id ORDER BY score DESC NULLS LAST, created_at, id)"
        "   AS rn"
        "   FROM submissions WHERE status = 'done') b"
        " JOIN users u ON u.id = b.user_id JOIN problems p ON p.id = b.problem_id"
        " WHERE b.rn = 1 AND u.role = 'student'"
        " ORDER BY lower(u.username), u.username, p.slug",
    /* hints and walkthroughs (migration 4) */
    [Q_HINT_COUNT] = "SELECT count(*) FROM hint_opens WHERE user_id = ? AND problem_id = ?",
    [Q_HINT_GET] =
        "SELECT opened_at FROM hint_opens WHERE user_id = ? AND problem_id = ? AND n = ?",
    [Q_HINT_INSERT] = "INSERT INTO hint_opens(user_id, problem_id, n, problem_version, opened_at)"
                      " VALUES (?,?,?,?,?)",
    [Q_HINT_LIST] = "SELECT h.n, h.problem_version, h.opened_at, u.username FROM hint_opens h"
                    " JOIN problems p ON p.id = h.problem_id JOIN users u ON u.id = h.user_id"
                    " WHERE p.slug = ?1 AND (?2 = 0 OR h.user_id = ?2)"
                    " ORDER BY lower(u.username), u.username, h.n",
    [Q_WALK_GET] = "SELECT w.problem_id IS NOT NULL, coalesce(w.opens_at, 0), EXISTS (SELECT 1"
                   "   FROM submissions s WHERE s.user_id = ?2 AND s.problem_id = p.id"
                   "   AND s.status = 'done' AND s.verdict = 'accepted')"
                   " FROM problems p LEFT JOIN walkthrough_dates w ON w.problem_id = p.id"
                   " WHERE p.slug = ?1",
    [Q_WALK_SET] = "INSERT INTO walkthrough_dates(problem_id, opens_at, set_by, set_at)"
                   " VALUES (?, nullif(?, 0), ?, ?) ON CONFLICT(problem_id) DO UPDATE SET"
                   " opens_at = excluded.opens_at, set_by = excluded.set_by,"
                   " set_at = excluded.set_at",
    /* problem states (migration 5) */
    [Q_PROBLEM_SET_STATE] =
        "UPDATE problems SET state = ?, publish_at = nullif(?, 0) WHERE slug = ? RETURNING id",
    [Q_PROBLEM_SUBMISSIONS] = "SELECT count(*) FROM submissions WHERE problem_id = ?",
    /* One statement per table, in the order the foreign keys need. */
    [Q_PROBLEM_DELETE] = "DELETE FROM hint_opens WHERE problem_id = ?",
    /* accounts (migration 5) */
    [Q_USER_SET_PASSWORD] = "UPDATE users SET pwhash = ?, must_change_password = ? WHERE id = ?",
    [Q_SESSIONS_END] = "DELETE FROM sessions WHERE user_id = ? AND token_hash != coalesce(?, '')",
    /* rejudges (migration 6) */
    [Q_REJUDGE_ONE] =
        "UPDATE submissions SET status = 'queued', problem_version = ?, progress = NULL,"
        " verdict = NULL, score = NULL, time_ms = NULL, compile_ms = NULL, report = NULL,"
        " internal_message = NULL, started_at = NULL, judged_at = NULL, queued_at = ?,"
        " retry_at = 0, retries = 0, bench_status = NULL, bench_report = NULL, bench_ms = NULL"
        " WHERE id = ? AND status = 'done'",
    [Q_SUB_PROBLEM] = "SELECT p.slug, s.status FROM submissions s JOIN problems p"
                      " ON p.id = s.problem_id WHERE s.id = ?",
    [Q_REJUDGE_RECORD] = "INSERT INTO rejudges(problem_id, submission_id, requested_by,"
                         " requested_at, count) VALUES (?, nullif(?, 0), nullif(?, 0), ?, 0)"
                         " RETURNING id",
    [Q_REJUDGE_COUNT] = "UPDATE rejudges SET count = ? WHERE id = ?",
    /* Before the requeue: what each submission was. */
    [Q_REJUDGE_ITEMS] =
        "INSERT INTO rejudge_items(rejudge_id, submission_id, old_status, old_verdict,"
        " old_score, old_version, old_time_ms, old_judged_at)"
        " SELECT ?1, id, status, verdict, score, problem_version, time_ms, judged_at"
        " FROM submissions WHERE problem_id = ?2 AND status != 'cancelled'",
    [Q_REJUDGE_ITEM_ONE] =
        "INSERT INTO rejudge_items(rejudge_id, submission_id, old_status, old_verdict,"
        " old_score, old_version, old_time_ms, old_judged_at)"
        " SELECT ?1, id, status, verdict, score, problem_version, time_ms, judged_at"
        " FROM submissions WHERE id = ?2 AND status = 'done'",
    [Q_REJUDGE_HEAD] =
        "SELECT r.id, p.slug, coalesce(r.submission_id, 0), coalesce(u.username, ''),"
        " r.requested_at, r.count FROM rejudges r JOIN problems p ON p.id = r.problem_id"
        " LEFT JOIN users u ON u.id = r.requested_by WHERE r.id = ?",
    /* Per submission of a rejudge: before, and after — the row as it is
     * now, or, if a later rejudge took the submission again, what that one
     * found (the result of this rejudge). */
    [Q_REJUDGE_REPORT] =
        "SELECT i.submission_id, u.username, i.old_status, i.old_verdict, i.old_score,"
        " i.old_version, coalesce(n.old_status, s.status),"
        " CASE WHEN n.rejudge_id IS NULL THEN s.verdict ELSE n.old_verdict END,"
        " CASE WHEN n.rejudge_id IS NULL THEN s.score ELSE n.old_score END,"
        " CASE WHEN n.rejudge_id IS NULL THEN s.problem_version ELSE n.old_version END,"
        " coalesce(n.rejudge_id, 0)"
        " FROM rejudge_items i JOIN submissions s ON s.id = i.submission_id"
        " JOIN users u ON u.id = s.user_id"
        " LEFT JOIN rejudge_items n ON n.submission_id = i.submission_id AND n.rejudge_id ="
        "   (SELECT min(rejudge_id) FROM rejudge_items WHERE submission_id = i.submission_id"
        "    AND rejudge_id > i.rejudge_id)"
        " WHERE i.rejudge_id = ? ORDER BY i.submission_id",
    [Q_REJUDGE_LIST] =
        "SELECT r.id, p.slug, coalesce(r.submission_id, 0), coalesce(u.username, ''),"
        " r.requested_at, r.count FROM rejudges r JOIN problems p ON p.id = r.problem_id"
        " LEFT JOIN users u ON u.id = r.requested_by ORDER BY r.id DESC LIMIT ?",
    /* A submission's earlier judgements, oldest first: each rejudge kept
     * the one it replaced. */
    [Q_SUB_HISTORY] =
        "SELECT i.rejudge_id, r.requested_at, i.old_status, i.old_verdict, i.old_score,"
        " i.old_version, i.old_time_ms, i.old_judged_at FROM rejudge_items i"
        " JOIN rejudges r ON r.id = i.rejudge_id WHERE i.submission_id = ? ORDER BY i.rejudge_id",
    /* assignments (migration 7) */
    [Q_ASSIGNMENT_INSERT] =
        "INSERT INTO assignments(slug, title, opens_at, due_at, cutoff_at, penalty_per_day,"
        " created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, nullif(?, 0), ?) RETURNING id",
    [Q_ASSIGNMENT_UPDATE] =
        "UPDATE assignments SET slug = ?, title = ?, opens_at = ?, due_at = ?, cutoff_at = ?,"
        " penalty_per_day = ? WHERE id = ?",
    [Q_ASSIGNMENT_PROBLEMS_CLEAR] = "DELETE FROM assignment_problems WHERE assignment_id = ?",
    [Q_ASSIGNMENT_PROBLEM_ADD] =
        "INSERT INTO assignment_problems(assignment_id, problem_id, position)"
        " SELECT ?, id, ? FROM problems WHERE slug = ?",
    [Q_ASSIGNMENT_GET] = "SELECT id, slug, title, opens_at, due_at, cutoff_at, penalty_per_day"
                         " FROM assignments WHERE slug = ?",
    [Q_ASSIGNMENT_LIST] = "SELECT id, slug, title, opens_at, due_at, cutoff_at, penalty_per_day"
                          " FROM assignments ORDER BY due_at, slug",
    [Q_ASSIGNMENT_PROBLEMS] =
        "SELECT p.slug, p.id FROM assignment_problems ap JOIN problems p ON p.id = ap.problem_id"
        " WHERE ap.assignment_id = ? ORDER BY ap.position",
    [Q_ASSIGNMENT_DELETE] = "DELETE FROM assignments WHERE slug = ?",
    [Q_STUDENTS] = "SELECT id, username, coalesce(student_id, ''), coalesce(display_name, '')"
                   " FROM users WHERE role = 'student' AND (?1 = 0 OR id = ?1)"
                   " ORDER BY lower(username), username",
    /* The judged submissions of an assignment's problems inside its window
     * (up to the cut-off), of one user or all (?4 = 0). */
    [Q_ASSIGNMENT_SUBMISSIONS] =
        "SELECT s.id, s.user_id, p.slug, s.score, s.created_at, s.verdict"
        " FROM submissions s JOIN assignment_problems ap ON ap.problem_id = s.problem_id"
        " JOIN problems p ON p.id = s.problem_id"
        " WHERE ap.assignment_id = ?1 AND s.status = 'done' AND s.created_at >= ?2"
        " AND s.created_at <= ?3 AND (?4 = 0 OR s.user_id = ?4)",
    [Q_USER_IMPORT] = "INSERT INTO users(username, pwhash, role, created_at, must_change_password,"
                      " student_id, display_name) VALUES (?, ?, 'student', ?, 1, ?, ?)",
    /* drafts (migration 8) */
    [Q_DRAFT_GET] = "SELECT d.source, d.revision, d.updated_at FROM drafts d"
                    " JOIN problems p ON p.id = d.problem_id WHERE d.user_id = ? AND p.slug = ?",
    /* A new draft is revision 1; each save adds 1, but only if the caller
     * saw the stored revision (?4 = 0: whatever it is). */
    [Q_DRAFT_PUT] = "INSERT INTO drafts(user_id, problem_id, source, revision, updated_at)"
                    " SELECT ?1, id, ?3, 1, ?5 FROM problems WHERE slug = ?2"
                    " ON CONFLICT(user_id, problem_id) DO UPDATE SET source = excluded.source,"
                    " revision = drafts.revision + 1, updated_at = excluded.updated_at"
                    " WHERE ?4 = 0 OR drafts.revision = ?4 RETURNING revision",
    [Q_DRAFT_DELETE] = "DELETE FROM drafts WHERE user_id = ? AND problem_id ="
                       " (SELECT id FROM problems WHERE slug = ?)",
    /* integrity: each student's last accepted submission of a problem, else
     * their last one (cancelled ones aside) */
    /* benchmarks (migration 9): the oldest verdict waiting, and only while
     * no other benchmark runs anywhere, so that two timings never share
     * the machine (docs/performance.md) */
    [Q_BENCH_CLAIM] =
        "UPDATE submissions SET bench_status = 'running', bench_claim = bench_claim + 1,"
        " bench_claimed_by = ?1, bench_lease_until = ?2 + ?3"
        " WHERE id = (SELECT id FROM submissions WHERE bench_status = 'pending'"
        "   ORDER BY judged_at, id LIMIT 1)"
        " AND NOT EXISTS (SELECT 1 FROM submissions WHERE bench_status = 'running')"
        " RETURNING id, bench_claim, problem_id, problem_version, source",
    /* the same source measured before on the same problem version, a
     * ranked measurement (bench_ms) before an unranked one */
    [Q_BENCH_POOL] = "SELECT b.bench_report, b.bench_ms FROM submissions a JOIN submissions b"
                     " ON b.problem_id = a.problem_id AND b.problem_version = a.problem_version"
                     " AND b.source = a.source AND b.bench_status = 'done' AND b.id != a.id"
                     " WHERE a.id = ? ORDER BY b.bench_ms IS NULL, b.id LIMIT 1",
    [Q_BENCH_FINISH] = "UPDATE submissions SET bench_status = ?, bench_report = ?, bench_ms = ?,"
                       " verdict = coalesce(?, verdict) WHERE id = ? AND bench_claim = ?"
                       " AND bench_status = 'running'",
    [Q_BENCH_REQUEUE] =
        "UPDATE submissions SET bench_status = 'pending'"
        " WHERE bench_status = 'running' AND (?1 = 0 OR (id = ?1 AND bench_claim = ?2))",
    /* judge hosts and leases (migration 10, docs/operations.md "Judge
     * hosts"): a host's heartbeat renews the leases of every claim it
     * holds; a claim whose lease ran out goes back to the queue */
    [Q_HOST_BEAT] =
        "INSERT INTO judge_hosts(name, hostname, pid, workers, busy, started_at, seen_at, stats)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7)"
        " ON CONFLICT(name) DO UPDATE SET workers = ?4, busy = ?5, seen_at = ?6, stats = ?7",
    [Q_LEASE_RENEW] = "UPDATE submissions SET lease_until = ? WHERE status = 'judging'"
                      " AND claimed_by = ?",
    [Q_BENCH_LEASE_RENEW] = "UPDATE submissions SET bench_lease_until = ?"
                            " WHERE bench_status = 'running' AND bench_claimed_by = ?",
    [Q_LEASE_EXPIRE] =
        "UPDATE submissions SET status = 'queued', progress = NULL, started_at = NULL,"
        " claimed_by = NULL WHERE status = 'judging' AND coalesce(lease_until, 0) < ?",
    [Q_BENCH_LEASE_EXPIRE] =
        "UPDATE submissions SET bench_status = 'pending', bench_claimed_by = NULL"
        " WHERE bench_status = 'running' AND coalesce(bench_lease_until, 0) < ?",
    [Q_LEASE_RELEASE] =
        "UPDATE submissions SET status = 'queued', progress = NULL, started_at = NULL,"
        " claimed_by = NULL WHERE status = 'judging' AND claimed_by IS NOT DISTINCT FROM ?",
    [Q_BENCH_LEASE_RELEASE] =
        "UPDATE submissions SET bench_status = 'pending', bench_claimed_by = NULL"
        " WHERE bench_status = 'running' AND bench_claimed_by IS NOT DISTINCT FROM ?",
    [Q_HOSTS] = "SELECT name, hostname, pid, workers, busy, started_at, seen_at, stats"
                " FROM judge_hosts WHERE seen_at >= ? ORDER BY name",
    [Q_HOST_REMOVE] = "DELETE FROM judge_hosts WHERE name = ?",
    [Q_PROBLEM_SOURCES] =
        "SELECT u.username, b.id, coalesce(b.verdict, b.status), b.created_at, b.source FROM"
        " (SELECT id, user_id, verdict, status, created_at, source, row_number() OVER"
        "   (PARTITION BY user_id ORDER BY"
        "   CASE WHEN verdict = 'accepted' THEN 1 ELSE 0 END DESC, id DESC) AS rn"
        "   FROM submissions WHERE problem_id = (SELECT id FROM problems WHERE slug = ?)"
        "   AND status != 'cancelled') b"
        " JOIN users u ON u.id = b.user_id WHERE b.rn = 1 AND u.role = 'student'"
        " ORDER BY lower(u.username), u.username",
    [Q_USER_SET_NAMES] = "UPDATE users SET student_id = ?, display_name = ? WHERE username = ?"
                         " RETURNING id",
};

/* The PostgreSQL spellings of the statements whose SQLite text does not
 * run there or would mean something else (docs/postgresql.md §3); NULL:
 * the text of sql[] serves both. */
static const char *const sql_pg[Q_COUNT] = {
    /* usernames are case-insensitive: SQLite's column is COLLATE NOCASE,
     * PostgreSQL has a unique index on lower(username) (migration 1) */
    [Q_USER_BY_NAME] = "SELECT id, username, role, pwhash, must_change_password,"
                       " coalesce(display_name, ''), coalesce(student_id, '')"
                       " FROM users WHERE lower(username) = lower(?)",
    [Q_USER_SET_NAMES] = "UPDATE users SET student_id = ?, display_name = ?"
                         " WHERE lower(username) = lower(?) RETURNING id",
    /* Claims run side by side (begin_concurrent): the subquery locks the
     * row it picks and passes over rows another claim holds. OF s: the
     * nullable side of the outer join cannot be locked, nor need be. */
    [Q_SUB_CLAIM] =
        "UPDATE submissions SET status = 'judging', claim = claim + 1, started_at = ?1,"
        " progress = NULL, claimed_by = ?2, lease_until = ?1 + ?3"
        " WHERE id = (SELECT s.id FROM submissions s"
        "   LEFT JOIN queue_turns t ON t.user_id = s.user_id"
        "   WHERE s.status = 'queued' AND s.retry_at <= ?1"
        "   ORDER BY (SELECT count(*) FROM submissions j"
        "     WHERE j.user_id = s.user_id AND j.status = 'judging'),"
        "   coalesce(t.served_at, 0), s.queued_at, s.id LIMIT 1"
        "   FOR UPDATE OF s SKIP LOCKED)"
        " RETURNING id, claim, problem_id, problem_version, source, queued_at, user_id, retries",
    /* "one benchmark at a time" is a check across rows, which row locks
     * cannot serialize: this claim stays in store_begin (the advisory
     * lock); SKIP LOCKED only keeps it off a row a verdict's write holds */
    [Q_BENCH_CLAIM] =
        "UPDATE submissions SET bench_status = 'running', bench_claim = bench_claim + 1,"
        " bench_claimed_by = ?1, bench_lease_until = ?2 + ?3"
        " WHERE id = (SELECT id FROM submissions WHERE bench_status = 'pending'"
        "   ORDER BY judged_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
        " AND NOT EXISTS (SELECT 1 FROM submissions WHERE bench_status = 'running')"
        " RETURNING id, bench_claim, problem_id, problem_version, source",
    /* no "+status" (a SQLite planner hint, an operator error here):
     * PostgreSQL walks the primary key for ORDER BY id DESC LIMIT 50 */
    [Q_MEAN_JUDGE] =
        "SELECT (SELECT count(*) FROM submissions WHERE status = 'judging'),"
        " (SELECT avg(judged_at - started_at) FROM (SELECT judged_at, started_at FROM submissions"
        "   WHERE status = 'done' AND started_at IS NOT NULL ORDER BY id DESC LIMIT 50)"
        "   AS recent)",
};

/* The statement text of q for backend b. */
static const char *sql_of(enum db_backend b, enum q q)
{
    return b == DB_POSTGRESQL && sql_pg[q] ? sql_pg[q] : sql[q];
}

/* The rest of a problem's rows, deleted after hint_opens (Q_PROBLEM_DELETE)
 * by store_problem_delete. */
static const char *const problem_delete_rest[] = {
    "DELETE FROM walkthrough_dates WHERE problem_id = ?1",
    "DELETE FROM rejudges WHERE problem_id = ?1", /* of no submission: it has none */
    "DELETE FROM assignment_problems WHERE problem_id = ?1",
    "DELETE FROM drafts WHERE problem_id = ?1",
    "DELETE FROM problem_versions WHERE problem_id = ?1",
    "DELETE FROM problems WHERE id = ?1",
};

/* Migration i (0-based) takes the schema from version i to i + 1. */
static const char *const migrations[] = {
    "CREATE TABLE users ("
    "  id INTEGER PRIMARY KEY,"
    "  username TEXT NOT NULL UNIQUE COLLATE NOCASE,"
    "  pwhash TEXT NOT NULL,"
    "  role TEXT NOT NULL CHECK (role IN ('student', 'instructor')),"
    "  created_at INTEGER NOT NULL);"
    "CREATE TABLE sessions ("
    "  token_hash TEXT PRIMARY KEY,"
    "  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
    "  created_at INTEGER NOT NULL,"
    "  expires_at INTEGER NOT NULL);"
    "CREATE INDEX sessions_expiry ON sessions(expires_at);"
    "CREATE TABLE problems ("
    "  id INTEGER PRIMARY KEY,"
    "  slug TEXT NOT NULL UNIQUE,"
    "  current_version INTEGER NOT NULL,"
    "  created_at INTEGER NOT NULL);"
    "CREATE TABLE problem_versions ("
    "  problem_id INTEGER NOT NULL REFERENCES problems(id),"
    "  version INTEGER NOT NULL,"
    "  title TEXT NOT NULL,"
    "  content_hash TEXT NOT NULL,"
    "  origin TEXT NOT NULL CHECK (origin IN ('directory', 'upload')),"
    "  created_by INTEGER REFERENCES users(id),"
    "  created_at INTEGER NOT NULL,"
    "  PRIMARY KEY (problem_id, version));"
    "CREATE TABLE submissions ("
    "  id INTEGER PRIMARY KEY,"
    "  user_id INTEGER NOT NULL REFERENCES users(id),"
    "  problem_id INTEGER NOT NULL,"
    "  problem_version INTEGER NOT NULL,"
    "  source TEXT NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('queued', 'judging', 'done')),"
    "  progress TEXT,"
    "  verdict TEXT CHECK (verdict IS NULL OR verdict IN ('accepted', 'wrong_answer',"
    "    'compile_error', 'runtime_error', 'time_limit', 'memory_limit',"
    "    'security_violation', 'internal_error')),"
    "  score REAL,"
    "  time_ms REAL,"
    "  compile_ms REAL,"
    "  report TEXT,"
    "  internal_message TEXT,"
    "  claim INTEGER NOT NULL DEFAULT 0,"
    "  judgements INTEGER NOT NULL DEFAULT 0,"
    "  created_at INTEGER NOT NULL,"
    "  queued_at INTEGER NOT NULL,"
    "  started_at INTEGER,"
    "  judged_at INTEGER,"
    "  FOREIGN KEY (problem_id, problem_version)"
    "    REFERENCES problem_versions(problem_id, version));"
    "CREATE INDEX submissions_queue ON submissions(status, queued_at, id);"
    "CREATE INDEX submissions_user ON submissions(user_id, id);"
    "CREATE INDEX submissions_problem ON submissions(problem_id, problem_version, verdict);"
    "CREATE TABLE test_results ("
    "  submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  name TEXT NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  verdict TEXT NOT NULL,"
    "  weight INTEGER NOT NULL,"
    "  time_ms REAL,"
    "  wall_ms REAL,"
    "  max_abs_err REAL,"
    "  max_rel_err REAL,"
    "  n_mismatch INTEGER,"
    "  message TEXT,"
    "  PRIMARY KEY (submission_id, idx));",
    /* 2: the fair queue. A new status `cancelled` (the CHECK constraint can
     * only change by rebuilding the table: store_migrate runs migrations
     * with foreign keys off, so dropping the old table does not cascade to
     * test_results); retry_at and retries for judge-side resource failures;
     * an index for the per-user count; queue_turns, when each user's
     * submission was last claimed (the round-robin's memory). */
    "CREATE TABLE submissions_v2 ("
    "  id INTEGER PRIMARY KEY,"
    "  user_id INTEGER NOT NULL REFERENCES users(id),"
    "  problem_id INTEGER NOT NULL,"
    "  problem_version INTEGER NOT NULL,"
    "  source TEXT NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('queued', 'judging', 'done', 'cancelled')),"
    "  progress TEXT,"
    "  verdict TEXT CHECK (verdict IS NULL OR verdict IN ('accepted', 'wrong_answer',"
    "    'compile_error', 'runtime_error', 'time_limit', 'memory_limit',"
    "    'security_violation', 'internal_error')),"
    "  score REAL,"
    "  time_ms REAL,"
    "  compile_ms REAL,"
    "  report TEXT,"
    "  internal_message TEXT,"
    "  claim INTEGER NOT NULL DEFAULT 0,"
    "  judgements INTEGER NOT NULL DEFAULT 0,"
    "  created_at INTEGER NOT NULL,"
    "  queued_at INTEGER NOT NULL,"
    "  started_at INTEGER,"
    "  judged_at INTEGER,"
    "  retry_at INTEGER NOT NULL DEFAULT 0,"
    "  retries INTEGER NOT NULL DEFAULT 0,"
    "  FOREIGN KEY (problem_id, problem_version)"
    "    REFERENCES problem_versions(problem_id, version));"
    "INSERT INTO submissions_v2 (id, user_id, problem_id, problem_version, source, status,"
    "  progress, verdict, score, time_ms, compile_ms, report, internal_message, claim,"
    "  judgements, created_at, queued_at, started_at, judged_at)"
    "  SELECT id, user_id, problem_id, problem_version, source, status, progress, verdict,"
    "  score, time_ms, compile_ms, report, internal_message, claim, judgements, created_at,"
    "  queued_at, started_at, judged_at FROM submissions;"
    "DROP TABLE submissions;"
    "ALTER TABLE submissions_v2 RENAME TO submissions;"
    "CREATE INDEX submissions_queue ON submissions(status, queued_at, id);"
    "CREATE INDEX submissions_user ON submissions(user_id, id);"
    "CREATE INDEX submissions_problem ON submissions(problem_id, problem_version, verdict);"
    "CREATE INDEX submissions_user_status ON submissions(user_id, status);"
    "CREATE TABLE queue_turns ("
    "  user_id INTEGER PRIMARY KEY REFERENCES users(id),"
    "  served_at INTEGER NOT NULL);",
    /* 3: one truth for per-test results, the report JSON (submissions.report,
     * docs/architecture.md "What the database holds"). test_results copied
     * part of it and nothing read the table. */
    "DROP TABLE test_results;",
    /* 4: progressive hints and walkthroughs (docs/api.md, "Hints and
     * walkthroughs"). hint_opens: who opened which hint of a problem, when,
     * in which version (hints are opened in order, so a user's rows are
     * n = 1..k). walkthrough_dates: the date an instructor set for a
     * problem's walkthrough (opens_at NULL: none), kept here rather than in
     * the package so that it outlives re-uploads. */
    "CREATE TABLE hint_opens ("
    "  user_id INTEGER NOT NULL REFERENCES users(id),"
    "  problem_id INTEGER NOT NULL REFERENCES problems(id),"
    "  n INTEGER NOT NULL CHECK (n >= 1),"
    "  problem_version INTEGER NOT NULL,"
    "  opened_at INTEGER NOT NULL,"
    "  PRIMARY KEY (user_id, problem_id, n));"
    "CREATE INDEX hint_opens_problem ON hint_opens(problem_id);"
    "CREATE TABLE walkthrough_dates ("
    "  problem_id INTEGER PRIMARY KEY REFERENCES problems(id),"
    "  opens_at INTEGER,"
    "  set_by INTEGER REFERENCES users(id),"
    "  set_at INTEGER NOT NULL);",
    /* 5: the course layer's accounts and problem states (docs/api.md).
     * users: a student id and display name for grade exports and
     * leaderboards (optional, set by instructors or a class-list import),
     * and must_change_password after a reset. problems: state (draft,
     * published, archived) and an optional publish_at; problems that exist
     * before this version were visible to everyone and stay published. */
    "ALTER TABLE users ADD COLUMN student_id TEXT;"
    "ALTER TABLE users ADD COLUMN display_name TEXT;"
    "ALTER TABLE users ADD COLUMN must_change_password INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE problems ADD COLUMN state TEXT NOT NULL DEFAULT 'published'"
    "  CHECK (state IN ('draft', 'published', 'archived'));"
    "ALTER TABLE problems ADD COLUMN publish_at INTEGER;",
    /* 6: rejudges keep what they replace (docs/api.md, "Rejudges"): one
     * row per rejudge (of a problem, or of one submission), and per
     * submission it took, the status, verdict, score, version, time and
     * judging time it had before. Never deleted: a verdict is never lost. */
    "CREATE TABLE rejudges ("
    "  id INTEGER PRIMARY KEY,"
    "  problem_id INTEGER NOT NULL REFERENCES problems(id),"
    "  submission_id INTEGER REFERENCES submissions(id),"
    "  requested_by INTEGER REFERENCES users(id),"
    "  requested_at INTEGER NOT NULL,"
    "  count INTEGER NOT NULL);"
    "CREATE TABLE rejudge_items ("
    "  rejudge_id INTEGER NOT NULL REFERENCES rejudges(id),"
    "  submission_id INTEGER NOT NULL REFERENCES submissions(id),"
    "  old_status TEXT NOT NULL,"
    "  old_verdict TEXT,"
    "  old_score REAL,"
    "  old_version INTEGER NOT NULL,"
    "  old_time_ms REAL,"
    "  old_judged_at INTEGER,"
    "  PRIMARY KEY (rejudge_id, submission_id));"
    "CREATE INDEX rejudge_items_submission ON rejudge_items(submission_id, rejudge_id);",
    /* 7: assignments (docs/api.md, "Assignments"): a window [opens_at,
     * due_at] and a late policy, stored as cutoff_at (= due_at: late work
     * does not count) and penalty_per_day (a fraction of the score per
     * started day after due_at); the problems in order. */
    "CREATE TABLE assignments ("
    "  id INTEGER PRIMARY KEY,"
    "  slug TEXT NOT NULL UNIQUE,"
    "  title TEXT NOT NULL,"
    "  opens_at INTEGER NOT NULL,"
    "  due_at INTEGER NOT NULL,"
    "  cutoff_at INTEGER NOT NULL,"
    "  penalty_per_day REAL NOT NULL,"
    "  created_by INTEGER REFERENCES users(id),"
    "  created_at INTEGER NOT NULL);"
    "CREATE TABLE assignment_problems ("
    "  assignment_id INTEGER NOT NULL REFERENCES assignments(id) ON DELETE CASCADE,"
    "  problem_id INTEGER NOT NULL REFERENCES problems(id),"
    "  position INTEGER NOT NULL,"
    "  PRIMARY KEY (assignment_id, problem_id));"
    "CREATE INDEX assignment_problems_problem ON assignment_problems(problem_id);",
    /* 8: the editor's draft per user and problem, so that it follows the
     * student from machine to machine (docs/api.md, "Drafts"). */
    "CREATE TABLE drafts ("
    "  user_id INTEGER NOT NULL REFERENCES users(id),"
    "  problem_id INTEGER NOT NULL REFERENCES problems(id),"
    "  source TEXT NOT NULL,"
    "  revision INTEGER NOT NULL,"
    "  updated_at INTEGER NOT NULL,"
    "  PRIMARY KEY (user_id, problem_id));"
    "CREATE INDEX drafts_problem ON drafts(problem_id);",
    /* 9: the benchmark phase of an accepted submission (docs/performance.md):
     * its state, a claim of its own (benchmarks are claimed apart from
     * verdicts, one at a time), the report and the geometric mean of the
     * median times, the leaderboard's key. */
    "ALTER TABLE submissions ADD COLUMN bench_status TEXT CHECK (bench_status IS NULL OR"
    "  bench_status IN ('pending', 'running', 'done', 'failed'));"
    "ALTER TABLE submissions ADD COLUMN bench_claim INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE submissions ADD COLUMN bench_report TEXT;"
    "ALTER TABLE submissions ADD COLUMN bench_ms REAL;"
    "CREATE INDEX submissions_bench ON submissions(bench_status, judged_at, id)"
    "  WHERE bench_status IN ('pending', 'running');",
    /* 10: judge hosts (docs/operations.md, "Judge hosts"). A claim names
     * its holder and holds a lease that the holder's heartbeat renews; a
     * lease that runs out (the holder died) hands the claim back to the
     * queue. A claim from before this migration has no lease: expired. */
    "ALTER TABLE submissions ADD COLUMN claimed_by TEXT;"
    "ALTER TABLE submissions ADD COLUMN lease_until INTEGER;"
    "ALTER TABLE submissions ADD COLUMN bench_claimed_by TEXT;"
    "ALTER TABLE submissions ADD COLUMN bench_lease_until INTEGER;"
    "CREATE TABLE judge_hosts ("
    "  name TEXT PRIMARY KEY,"
    "  hostname TEXT NOT NULL,"
    "  pid INTEGER NOT NULL,"
    "  workers INTEGER NOT NULL,"
    "  busy INTEGER NOT NULL,"
    "  started_at INTEGER NOT NULL,"
    "  seen_at INTEGER NOT NULL);",
    /* 11: the files of a version (docs/operations.md, "Judge hosts"), so
     * that a host without them (another host recorded the version, or a
     * fresh data directory) unpacks them from the database. NULL in the
     * rows from before: those load from the local files only. */
    "ALTER TABLE problem_versions ADD COLUMN package BLOB;",
    /* 12: each judge host's own judging counters (server/metrics.h's
     * metrics_judging_json) with its heartbeat, so that any front end's
     * /metrics shows the judgements of every host. */
    "ALTER TABLE judge_hosts ADD COLUMN stats TEXT;",
};

/* The same migrations for PostgreSQL (docs/postgresql.md §2): migration i
 * of each array takes the schema from version i to i + 1, so one
 * schema_version serves both. Types: BIGINT for every integer (times in
 * ms overflow INTEGER), identity columns for the generated ids, DOUBLE
 * PRECISION for REAL; usernames unique case-insensitively through an
 * index on lower(username) (usernames are ASCII, where lower() is NOCASE).
 * A new migration is written in both arrays, side by side. */
static const char *const pg_migrations[] = {
    "CREATE TABLE users ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  username TEXT NOT NULL,"
    "  pwhash TEXT NOT NULL,"
    "  role TEXT NOT NULL CHECK (role IN ('student', 'instructor')),"
    "  created_at BIGINT NOT NULL);"
    "CREATE UNIQUE INDEX users_username_nocase ON users (lower(username));"
    "CREATE TABLE sessions ("
    "  token_hash TEXT PRIMARY KEY,"
    "  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
    "  created_at BIGINT NOT NULL,"
    "  expires_at BIGINT NOT NULL);"
    "CREATE INDEX sessions_expiry ON sessions(expires_at);"
    "CREATE TABLE problems ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  slug TEXT NOT NULL UNIQUE,"
    "  current_version BIGINT NOT NULL,"
    "  created_at BIGINT NOT NULL);"
    "CREATE TABLE problem_versions ("
    "  problem_id BIGINT NOT NULL REFERENCES problems(id),"
    "  version BIGINT NOT NULL,"
    "  title TEXT NOT NULL,"
    "  content_hash TEXT NOT NULL,"
    "  origin TEXT NOT NULL CHECK (origin IN ('directory', 'upload')),"
    "  created_by BIGINT REFERENCES users(id),"
    "  created_at BIGINT NOT NULL,"
    "  PRIMARY KEY (problem_id, version));"
    "CREATE TABLE submissions ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  user_id BIGINT NOT NULL REFERENCES users(id),"
    "  problem_id BIGINT NOT NULL,"
    "  problem_version BIGINT NOT NULL,"
    "  source TEXT NOT NULL,"
    "  status TEXT NOT NULL CONSTRAINT submissions_status"
    "    CHECK (status IN ('queued', 'judging', 'done')),"
    "  progress TEXT,"
    "  verdict TEXT CHECK (verdict IS NULL OR verdict IN ('accepted', 'wrong_answer',"
    "    'compile_error', 'runtime_error', 'time_limit', 'memory_limit',"
    "    'security_violation', 'internal_error')),"
    "  score DOUBLE PRECISION,"
    "  time_ms DOUBLE PRECISION,"
    "  compile_ms DOUBLE PRECISION,"
    "  report TEXT,"
    "  internal_message TEXT,"
    "  claim BIGINT NOT NULL DEFAULT 0,"
    "  judgements BIGINT NOT NULL DEFAULT 0,"
    "  created_at BIGINT NOT NULL,"
    "  queued_at BIGINT NOT NULL,"
    "  started_at BIGINT,"
    "  judged_at BIGINT,"
    "  FOREIGN KEY (problem_id, problem_version)"
    "    REFERENCES problem_versions(problem_id, version));"
    "CREATE INDEX submissions_queue ON submissions(status, queued_at, id);"
    "CREATE INDEX submissions_user ON submissions(user_id, id);"
    "CREATE INDEX submissions_problem ON submissions(problem_id, problem_version, verdict);"
    "CREATE TABLE test_results ("
    "  submission_id BIGINT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,"
    "  idx BIGINT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  verdict TEXT NOT NULL,"
    "  weight BIGINT NOT NULL,"
    "  time_ms DOUBLE PRECISION,"
    "  wall_ms DOUBLE PRECISION,"
    "  max_abs_err DOUBLE PRECISION,"
    "  max_rel_err DOUBLE PRECISION,"
    "  n_mismatch BIGINT,"
    "  message TEXT,"
    "  PRIMARY KEY (submission_id, idx));",
    /* 2: the constraint changes in place (no rebuild, unlike SQLite) */
    "ALTER TABLE submissions DROP CONSTRAINT submissions_status,"
    "  ADD CONSTRAINT submissions_status"
    "    CHECK (status IN ('queued', 'judging', 'done', 'cancelled')),"
    "  ADD COLUMN retry_at BIGINT NOT NULL DEFAULT 0,"
    "  ADD COLUMN retries BIGINT NOT NULL DEFAULT 0;"
    "CREATE INDEX submissions_user_status ON submissions(user_id, status);"
    "CREATE TABLE queue_turns ("
    "  user_id BIGINT PRIMARY KEY REFERENCES users(id),"
    "  served_at BIGINT NOT NULL);",
    /* 3 */
    "DROP TABLE test_results;",
    /* 4 */
    "CREATE TABLE hint_opens ("
    "  user_id BIGINT NOT NULL REFERENCES users(id),"
    "  problem_id BIGINT NOT NULL REFERENCES problems(id),"
    "  n BIGINT NOT NULL CHECK (n >= 1),"
    "  problem_version BIGINT NOT NULL,"
    "  opened_at BIGINT NOT NULL,"
    "  PRIMARY KEY (user_id, problem_id, n));"
    "CREATE INDEX hint_opens_problem ON hint_opens(problem_id);"
    "CREATE TABLE walkthrough_dates ("
    "  problem_id BIGINT PRIMARY KEY REFERENCES problems(id),"
    "  opens_at BIGINT,"
    "  set_by BIGINT REFERENCES users(id),"
    "  set_at BIGINT NOT NULL);",
    /* 5 */
    "ALTER TABLE users ADD COLUMN student_id TEXT, ADD COLUMN display_name TEXT,"
    "  ADD COLUMN must_change_password BIGINT NOT NULL DEFAULT 0;"
    "ALTER TABLE problems ADD COLUMN state TEXT NOT NULL DEFAULT 'published'"
    "  CHECK (state IN ('draft', 'published', 'archived')),"
    "  ADD COLUMN publish_at BIGINT;",
    /* 6 */
    "CREATE TABLE rejudges ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  problem_id BIGINT NOT NULL REFERENCES problems(id),"
    "  submission_id BIGINT REFERENCES submissions(id),"
    "  requested_by BIGINT REFERENCES users(id),"
    "  requested_at BIGINT NOT NULL,"
    "  count BIGINT NOT NULL);"
    "CREATE TABLE rejudge_items ("
    "  rejudge_id BIGINT NOT NULL REFERENCES rejudges(id),"
    "  submission_id BIGINT NOT NULL REFERENCES submissions(id),"
    "  old_status TEXT NOT NULL,"
    "  old_verdict TEXT,"
    "  old_score DOUBLE PRECISION,"
    "  old_version BIGINT NOT NULL,"
    "  old_time_ms DOUBLE PRECISION,"
    "  old_judged_at BIGINT,"
    "  PRIMARY KEY (rejudge_id, submission_id));"
    "CREATE INDEX rejudge_items_submission ON rejudge_items(submission_id, rejudge_id);",
    /* 7 */
    "CREATE TABLE assignments ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  slug TEXT NOT NULL UNIQUE,"
    "  title TEXT NOT NULL,"
    "  opens_at BIGINT NOT NULL,"
    "  due_at BIGINT NOT NULL,"
    "  cutoff_at BIGINT NOT NULL,"
    "  penalty_per_day DOUBLE PRECISION NOT NULL,"
    "  created_by BIGINT REFERENCES users(id),"
    "  created_at BIGINT NOT NULL);"
    "CREATE TABLE assignment_problems ("
    "  assignment_id BIGINT NOT NULL REFERENCES assignments(id) ON DELETE CASCADE,"
    "  problem_id BIGINT NOT NULL REFERENCES problems(id),"
    "  position BIGINT NOT NULL,"
    "  PRIMARY KEY (assignment_id, problem_id));"
    "CREATE INDEX assignment_problems_problem ON assignment_problems(problem_id);",
    /* 8 */
    "CREATE TABLE drafts ("
    "  user_id BIGINT NOT NULL REFERENCES users(id),"
    "  problem_id BIGINT NOT NULL REFERENCES problems(id),"
    "  source TEXT NOT NULL,"
    "  revision BIGINT NOT NULL,"
    "  updated_at BIGINT NOT NULL,"
    "  PRIMARY KEY (user_id, problem_id));"
    "CREATE INDEX drafts_problem ON drafts(problem_id);",
    /* 9 */
    "ALTER TABLE submissions ADD COLUMN bench_status TEXT CHECK (bench_status IS NULL OR"
    "  bench_status IN ('pending', 'running', 'done', 'failed')),"
    "  ADD COLUMN bench_claim BIGINT NOT NULL DEFAULT 0,"
    "  ADD COLUMN bench_report TEXT,"
    "  ADD COLUMN bench_ms DOUBLE PRECISION;"
    "CREATE INDEX submissions_bench ON submissions(bench_status, judged_at, id)"
    "  WHERE bench_status IN ('pending', 'running');",
    /* 10 */
    "ALTER TABLE submissions ADD COLUMN claimed_by TEXT, ADD COLUMN lease_until BIGINT,"
    "  ADD COLUMN bench_claimed_by TEXT, ADD COLUMN bench_lease_until BIGINT;"
    "CREATE TABLE judge_hosts ("
    "  name TEXT PRIMARY KEY,"
    "  hostname TEXT NOT NULL,"
    "  pid BIGINT NOT NULL,"
    "  workers BIGINT NOT NULL,"
    "  busy BIGINT NOT NULL,"
    "  started_at BIGINT NOT NULL,"
    "  seen_at BIGINT NOT NULL);",
    /* 11 */
    "ALTER TABLE problem_versions ADD COLUMN package BYTEA;",
    /* 12 */
    "ALTER TABLE judge_hosts ADD COLUMN stats TEXT;",
};

_Static_assert(sizeof pg_migrations == sizeof migrations,
               "each migration is written for both backends");

struct store {
    struct db *db;
    struct db_stmt *st[Q_COUNT]; /* prepared at first use */
    char err[STORE_ERR_LEN];
    char holder[STORE_HOST_NAME_LEN]; /* claims name this holder ("" = NULL) */
    int64_t lease_ms;                 /* and hold a lease this long */
};

struct store_pool {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct store **all, **free;
    int n, n_free;
};

/* Whether the last store failure on this thread was transient: a request
 * is served by one thread, so routes.c can answer 503 instead of 500 for
 * whatever store call its handler made (store_thread_transient). */
static __thread bool thread_transient;

static int fail(struct store *s, const char *what)
{
    snprintf(s->err, sizeof s->err, "%s: %s", what, db_error(s->db));
    if (db_errclass(s->db) == DB_TRANSIENT)
        thread_transient = true;
    return -1;
}

bool store_thread_transient(bool clear)
{
    bool was = thread_transient;
    if (clear)
        thread_transient = false;
    return was;
}

static struct db_stmt *prep(struct store *s, enum q q)
{
    if (!s->st[q] && !(s->st[q] = db_prepare(s->db, sql_of(db_backend(s->db), q))))
        fail(s, "prepare");
    return s->st[q];
}

static void done(struct db_stmt *st)
{
    if (st)
        db_reset(st); /* also clears the parameters */
}

/* A double parameter: NAN binds NULL, as SQLite has always stored it (and
 * PostgreSQL would keep a NaN, which sorts and compares unlike NULL). */
static int bind_double(struct db_stmt *st, int i, double v)
{
    return isnan(v) ? db_bind_null(st, i) : db_bind_double(st, i, v);
}

/* Binds parameters from 1 by a format: i = int64, I = int, d = double,
 * t = text (NULL binds NULL), b = text + size_t length. */
static int bind(struct store *s, struct db_stmt *st, const char *fmt, ...)
{
    va_list ap;
    int rc = 0;
    va_start(ap, fmt);
    for (int i = 1; *fmt && rc == 0; fmt++, i++) {
        switch (*fmt) {
        case 'i': rc = db_bind_int64(st, i, va_arg(ap, int64_t)); break;
        case 'I': rc = db_bind_int64(st, i, va_arg(ap, int)); break;
        case 'd': rc = bind_double(st, i, va_arg(ap, double)); break;
        case 't': rc = db_bind_text(st, i, va_arg(ap, const char *)); break;
        case 'b': {
            const char *t = va_arg(ap, const char *);
            size_t n = va_arg(ap, size_t);
            rc = db_bind_textn(st, i, t, n);
            break;
        }
        default:
            va_end(ap);
            snprintf(s->err, sizeof s->err, "bind: unknown format '%c'", *fmt);
            return -1;
        }
    }
    va_end(ap);
    return rc == 0 ? 0 : fail(s, "bind");
}

/* Runs a statement that returns no rows (or whose rows are not needed). */
static int exec_step(struct store *s, struct db_stmt *st)
{
    int rc = db_step(st);
    return rc == DB_DONE || rc == DB_ROW ? 0 : fail(s, "step");
}

/* Steps an INSERT ... RETURNING id to its end: *id the new row's id.
 * -1 (class in db_errclass) when it fails. */
static int insert_id(struct db_stmt *st, int64_t *id)
{
    /* an INSERT ... VALUES ... RETURNING always has its row, or failed */
    int r = db_step(st);
    if (r != DB_ROW)
        return -1;
    *id = db_column_int64(st, 0);
    while ((r = db_step(st)) == DB_ROW)
        ;
    return r == DB_DONE ? 0 : -1;
}

static void copy_col(struct db_stmt *st, int col, char *buf, size_t len)
{
    const char *t = db_column_text(st, col);
    snprintf(buf, len, "%s", t ? t : "");
}

/* A REAL column that may be NULL: NAN for NULL. */
static double col_real(struct db_stmt *st, int col)
{
    return db_column_null(st, col) ? NAN : db_column_double(st, col);
}

/* A TEXT column that may be NULL. */
static const char *col_text(struct db_stmt *st, int col)
{
    return db_column_text(st, col);
}

/* A TEXT column's bytes and their number (a NULL reads as empty). */
static const char *col_bytes(struct db_stmt *st, int col, size_t *n)
{
    const char *t = db_column_blob(st, col, n);
    if (!t)
        *n = 0;
    return t;
}

/* Records that a row callback stopped a read. */
static int stopped(struct store *s, const char *what)
{
    snprintf(s->err, sizeof s->err, "%s: stopped by the caller (out of memory?)", what);
    return -1;
}

const char *store_error(const struct store *s)
{
    return s->err;
}

bool store_error_transient(const struct store *s)
{
    return db_errclass(s->db) == DB_TRANSIENT;
}

struct store *store_open(const char *url, bool sync_full, char *err, size_t errlen)
{
    struct store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (!(s->db = db_open(url, err, errlen)))
        goto fail;
    if (db_backend(s->db) == DB_SQLITE) {
        /* WAL: readers never block the writer; NORMAL sync in WAL mode keeps
         * the database consistent across a crash of the process (only a
         * power loss can drop the last commits); FULL syncs every commit.
         * (PostgreSQL: WAL and foreign keys always; its synchronous_commit
         * default, on, is FULL's promise.) */
        char pragmas[256];
        snprintf(pragmas, sizeof pragmas,
                 "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = %s;",
                 sync_full ? "FULL" : "NORMAL");
        if (db_exec(s->db, pragmas) < 0) {
            snprintf(err, errlen, "%s: %s", url, db_error(s->db));
            goto fail;
        }
    }
    s->lease_ms = STORE_LEASE_MS_DEFAULT;
    return s;
fail:
    store_close(s);
    return NULL;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    for (int i = 0; i < Q_COUNT; i++)
        db_finalize(s->st[i]);
    db_close(s->db);
    free(s);
}

static int exec_sql(struct store *s, const char *text)
{
    if (db_exec(s->db, text) < 0) {
        snprintf(s->err, sizeof s->err, "%s", db_error(s->db));
        return -1;
    }
    return 0;
}

/* Fails if the open transaction left a foreign key dangling (checked by
 * hand because migrations run with enforcement off; SQLite only:
 * PostgreSQL checks them as each statement runs). */
static int check_foreign_keys(struct store *s)
{
    struct db_stmt *st = NULL;
    int rc = -1;
    if (db_backend(s->db) != DB_SQLITE)
        return 0;
    if (!(st = db_prepare(s->db, "PRAGMA foreign_key_check")))
        return fail(s, "foreign_key_check");
    int r = db_step(st);
    if (r == DB_DONE)
        rc = 0;
    else if (r == DB_ROW)
        snprintf(s->err, sizeof s->err, "migration leaves a dangling reference in table %s",
                 db_column_text(st, 0));
    else
        fail(s, "foreign_key_check");
    db_finalize(st);
    return rc;
}

/* Applies the missing migrations. Foreign keys are off meanwhile on SQLite
 * (it ignores the pragma inside a transaction, hence around the loop): a
 * migration that rebuilds a table drops the old one, which with
 * enforcement on would cascade-delete the rows that refer to it. */
static int migrate_all(struct store *s)
{
    int n = store_schema_latest();
    bool pg = db_backend(s->db) == DB_POSTGRESQL;
    struct db_stmt *st = NULL;
    for (;;) {
        if (store_begin(s) < 0)
            return -1;
        /* inside the transaction (its advisory lock on PostgreSQL), so that
         * two servers starting at once do not race to create it */
        if (exec_sql(s, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)") < 0)
            goto fail;
        int version = 0;
        if (!(st = db_prepare(s->db, "SELECT max(version) FROM schema_version"))) {
            fail(s, "schema_version");
            goto fail;
        }
        int r = db_step(st);
        if (r == DB_ROW)
            version = (int)db_column_int64(st, 0);
        else if (r < 0) {
            fail(s, "schema_version");
            goto fail;
        }
        db_finalize(st);
        st = NULL;
        if (version > n) {
            snprintf(s->err, sizeof s->err,
                     "database schema version %d is newer than this program (%d)", version, n);
            goto fail;
        }
        if (version == n)
            return store_commit(s);
        char bump[96];
        snprintf(bump, sizeof bump, "INSERT INTO schema_version(version) VALUES (%d)", version + 1);
        if (exec_sql(s, pg ? pg_migrations[version] : migrations[version]) < 0 ||
            check_foreign_keys(s) < 0 || exec_sql(s, bump) < 0 || store_commit(s) < 0)
            goto fail;
    }
fail:
    db_finalize(st);
    store_rollback(s);
    return -1;
}

int store_schema_latest(void)
{
    return (int)(sizeof migrations / sizeof migrations[0]);
}

int store_migrate(struct store *s)
{
    bool sqlite = db_backend(s->db) == DB_SQLITE;
    if (sqlite && exec_sql(s, "PRAGMA foreign_keys = OFF") < 0)
        return -1;
    int rc = migrate_all(s);
    if (sqlite && exec_sql(s, "PRAGMA foreign_keys = ON") < 0)
        rc = -1;
    return rc;
}

/* ---- transactions ---- */

int store_begin(struct store *s)
{
    return db_begin(s->db) < 0 ? fail(s, "begin") : 0;
}

/* A transaction whose correctness rests on row locks alone (the claims):
 * on PostgreSQL it does not wait for the other writers (server/db.h). */
static int begin_concurrent(struct store *s)
{
    return db_begin_concurrent(s->db) < 0 ? fail(s, "begin") : 0;
}

int store_commit(struct store *s)
{
    return db_commit(s->db) < 0 ? fail(s, "commit") : 0;
}

void store_rollback(struct store *s)
{
    db_rollback(s->db);
}

/* ---- announcements of new work ---- */

#define QUEUE_CHANNEL "attnjudge_queue"

/* Announces new work to every listener (PostgreSQL's NOTIFY, its own
 * statement after the write committed; SQLite: nothing). Best effort: a
 * lost announcement delays a claim until the listeners' next look. */
static void announce(struct store *s)
{
    if (db_backend(s->db) == DB_POSTGRESQL && db_notify(s->db, QUEUE_CHANNEL, NULL) < 0)
        return; /* the write itself succeeded; the next call reconnects */
}

int store_queue_listen(struct store *s)
{
    if (db_backend(s->db) != DB_POSTGRESQL)
        return 0;
    return db_listen(s->db, QUEUE_CHANNEL) < 0 ? fail(s, "listen") : 1;
}

int store_queue_wait(struct store *s, int timeout_ms)
{
    int r = db_wait_notify(s->db, timeout_ms, NULL, 0);
    return r < 0 ? fail(s, "wait") : r;
}

/* ---- pool ---- */

struct store_pool *store_pool_new(const char *url, bool sync_full, int n, char *err, size_t errlen)
{
    struct store_pool *p = calloc(1, sizeof *p);
    if (!p || !(p->all = calloc((size_t)n, sizeof *p->all)) ||
        !(p->free = calloc((size_t)n, sizeof *p->free))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    for (int i = 0; i < n; i++) {
        if (!(p->all[i] = store_open(url, sync_full, err, errlen)))
            goto fail;
        p->n++;
        p->free[p->n_free++] = p->all[i];
    }
    return p;
fail:
    store_pool_free(p);
    return NULL;
}

struct store *store_pool_get(struct store_pool *p)
{
    pthread_mutex_lock(&p->lock);
    while (p->n_free == 0)
        pthread_cond_wait(&p->cond, &p->lock);
    struct store *s = p->free[--p->n_free];
    pthread_mutex_unlock(&p->lock);
    return s;
}

void store_pool_put(struct store_pool *p, struct store *s)
{
    if (!s)
        return;
    store_rollback(s); /* a handler that bailed out mid-transaction */
    pthread_mutex_lock(&p->lock);
    p->free[p->n_free++] = s;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

void store_pool_free(struct store_pool *p)
{
    if (!p)
        return;
    if (p->all) {
        for (int i = 0; i < p->n; i++)
            store_close(p->all[i]);
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->cond);
    }
    free(p->all);
    free(p->free);
    free(p);
}

/* ---- users and sessions ---- */

int store_user_create(struct store *s, const char *username, const char *pwhash, const char *role,
                      int64_t now, int64_t *id)
{
    struct db_stmt *st = prep(s, Q_USER_INSERT);
    int rc = -1;
    if (!st || bind(s, st, "ttti", username, pwhash, role, now) < 0)
        goto out;
    int64_t new_id;
    if (insert_id(st, &new_id) < 0) {
        rc = db_errclass(s->db) == DB_UNIQUE ? STORE_EXISTS : fail(s, "insert user");
        goto out;
    }
    if (id)
        *id = new_id;
    rc = 0;
out:
    done(st);
    return rc;
}

static int read_user(struct store *s, struct db_stmt *st, struct store_user *u)
{
    int r = db_step(st);
    if (r == DB_DONE)
        return STORE_NOT_FOUND;
    if (r != DB_ROW)
        return fail(s, "user");
    u->id = db_column_int64(st, 0);
    copy_col(st, 1, u->username, sizeof u->username);
    copy_col(st, 2, u->role, sizeof u->role);
    copy_col(st, 3, u->pwhash, sizeof u->pwhash);
    u->must_change_password = (int)db_column_int64(st, 4) != 0;
    copy_col(st, 5, u->display_name, sizeof u->display_name);
    copy_col(st, 6, u->student_id, sizeof u->student_id);
    return 0;
}

int store_user_by_name(struct store *s, const char *username, struct store_user *u)
{
    struct db_stmt *st = prep(s, Q_USER_BY_NAME);
    int rc = -1;
    if (st && bind(s, st, "t", username) == 0)
        rc = read_user(s, st, u);
    done(st);
    return rc;
}

int store_session_create(struct store *s, const char *token_hash, int64_t user_id, int64_t now,
                         int64_t expires_at)
{
    struct db_stmt *st = prep(s, Q_SESSION_INSERT);
    int rc = -1;
    if (st && bind(s, st, "tiii", token_hash, user_id, now, expires_at) == 0)
        rc = exec_step(s, st);
    done(st);
    return rc;
}

int store_session_user(struct store *s, const char *token_hash, int64_t now, struct store_user *u)
{
    struct db_stmt *st = prep(s, Q_SESSION_USER);
    int rc = -1;
    if (st && bind(s, st, "ti", token_hash, now) == 0)
        rc = read_user(s, st, u);
    done(st);
    return rc;
}

int store_session_delete(struct store *s, const char *token_hash)
{
    struct db_stmt *st = prep(s, Q_SESSION_DELETE);
    int rc = -1;
    if (st && bind(s, st, "t", token_hash) == 0)
        rc = exec_step(s, st);
    done(st);
    return rc;
}

int store_session_purge(struct store *s, int64_t now)
{
    struct db_stmt *st = prep(s, Q_SESSION_PURGE);
    int rc = -1;
    if (st && bind(s, st, "i", now) == 0)
        rc = exec_step(s, st);
    done(st);
    return rc;
}

/* ---- problems ---- */

static void read_version(struct db_stmt *st, struct store_problem_version *v)
{
    v->problem_id = db_column_int64(st, 0);
    copy_col(st, 1, v->slug, sizeof v->slug);
    v->version = (int)db_column_int64(st, 2);
    v->current_version = (int)db_column_int64(st, 3);
    copy_col(st, 4, v->content_hash, sizeof v->content_hash);
    copy_col(st, 5, v->origin, sizeof v->origin);
    copy_col(st, 6, v->state, sizeof v->state);
    v->publish_at = db_column_int64(st, 7);
    v->has_package = db_column_int64(st, 8) != 0;
}

int store_problem_versions(struct store *s,
                           int (*cb)(void *arg, const struct store_problem_version *v), void *arg)
{
    struct db_stmt *st = prep(s, Q_PROBLEM_VERSIONS);
    int rc = -1, r;
    if (!st)
        return -1;
    while ((r = db_step(st)) == DB_ROW) {
        struct store_problem_version v;
        read_version(st, &v);
        if (cb(arg, &v) < 0)
            goto out;
    }
    rc = r == DB_DONE ? 0 : fail(s, "problem versions");
out:
    done(st);
    return rc;
}

int store_problem_current(struct store *s, const char *slug, struct store_problem_version *v)
{
    struct db_stmt *st = prep(s, Q_PROBLEM_CURRENT);
    int rc = -1;
    if (!st || bind(s, st, "t", slug) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_ROW) {
        read_version(st, v);
        rc = 0;
    } else {
        rc = r == DB_DONE ? STORE_NOT_FOUND : fail(s, "problem");
    }
out:
    done(st);
    return rc;
}

/* Finds slug's id and current version; STORE_NOT_FOUND if unknown. */
static int problem_by_slug(struct store *s, const char *slug, int64_t *id, int *current)
{
    struct db_stmt *st = prep(s, Q_PROBLEM_BY_SLUG);
    int rc = -1;
    if (!st || bind(s, st, "t", slug) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_ROW) {
        *id = db_column_int64(st, 0);
        *current = (int)db_column_int64(st, 1);
        rc = 0;
    } else {
        rc = r == DB_DONE ? STORE_NOT_FOUND : fail(s, "problem");
    }
out:
    done(st);
    return rc;
}

int store_problem_add_version(struct store *s, const char *slug, const char *title,
                              const char *content_hash, const char *origin, int64_t created_by,
                              bool create_only, int64_t now, int *version)
{
    int64_t pid;
    int current = 0, rc;
    struct db_stmt *st = NULL;
    rc = problem_by_slug(s, slug, &pid, &current);
    if (rc < 0)
        return -1;
    if (rc == 0 && create_only)
        return STORE_EXISTS;
    if (rc == STORE_NOT_FOUND) {
        /* An upload starts as a draft (docs/api.md, "Problem states"); the
         * course's own problems directory is published. */
        const char *state = strcmp(origin, "upload") ? "published" : "draft";
        st = prep(s, Q_PROBLEM_INSERT);
        if (!st || bind(s, st, "tit", slug, now, state) < 0)
            goto fail;
        if (insert_id(st, &pid) < 0) {
            fail(s, "insert problem");
            goto fail;
        }
        done(st);
        current = 0;
    }
    st = prep(s, Q_VERSION_INSERT);
    if (!st || bind(s, st, "iIttt", pid, current + 1, title, content_hash, origin) < 0)
        goto fail;
    if ((created_by > 0 ? db_bind_int64(st, 6, created_by) : db_bind_null(st, 6)) < 0 ||
        db_bind_int64(st, 7, now) < 0) {
        fail(s, "bind");
        goto fail;
    }
    if (exec_step(s, st) < 0)
        goto fail;
    done(st);
    st = prep(s, Q_PROBLEM_SET_CURRENT);
    if (!st || bind(s, st, "Ii", current + 1, pid) < 0 || exec_step(s, st) < 0)
        goto fail;
    done(st);
    *version = current + 1;
    return 0;
fail:
    done(st);
    return -1;
}

int store_problem_set_package(struct store *s, const char *slug, int version, const void *data,
                              size_t len)
{
    struct db_stmt *st = prep(s, Q_VERSION_SET_PACKAGE);
    int rc = -1;
    if (!st)
        return -1;
    if (db_bind_blob(st, 1, data, len) < 0 || db_bind_int64(st, 2, version) < 0 ||
        db_bind_text(st, 3, slug) < 0) {
        fail(s, "bind");
        goto out;
    }
    if (exec_step(s, st) < 0)
        goto out;
    rc = db_changes(s->db) == 1 ? 0 : STORE_NOT_FOUND;
out:
    done(st);
    return rc;
}

int store_problem_package(struct store *s, const char *slug, int version, void **data, size_t *len)
{
    struct db_stmt *st = prep(s, Q_VERSION_PACKAGE);
    int rc = -1;
    *data = NULL;
    *len = 0;
    if (!st || bind(s, st, "tI", slug, version) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_ROW) {
        size_t n = 0;
        const void *b = db_column_blob(st, 0, &n);
        if (!b) {
            rc = STORE_NOT_FOUND;
        } else if (!(*data = malloc(n + 1))) {
            snprintf(s->err, sizeof s->err, "package: out of memory");
        } else {
            memcpy(*data, b, n);
            ((char *)*data)[n] = '\0';
            *len = n;
            rc = 0;
        }
    } else {
        rc = r == DB_DONE ? STORE_NOT_FOUND : fail(s, "package");
    }
out:
    done(st);
    return rc;
}

/* ---- submissions ---- */

/* Runs a count statement q with at most one int64 parameter (param, or
 * NULL for none) and stores the count in *n. */
static int count_rows(struct store *s, enum q q, const int64_t *param, int64_t *n)
{
    struct db_stmt *st = prep(s, q);
    int rc = -1;
    if (!st)
        return -1;
    if (param && db_bind_int64(st, 1, *param) < 0) {
        fail(s, "bind");
        goto out;
    }
    if (db_step(st) != DB_ROW) {
        fail(s, "count");
        goto out;
    }
    *n = db_column_int64(st, 0);
    rc = 0;
out:
    done(st);
    return rc;
}

int store_submission_create(struct store *s, int64_t user_id, const char *slug, const char *source,
                            size_t len, const struct store_queue_limits *lim, int64_t now,
                            int64_t *id, int *version)
{
    int64_t pid, n;
    int rc = -1;
    struct db_stmt *st = NULL;
    if (store_begin(s) < 0)
        return -1;
    rc = problem_by_slug(s, slug, &pid, version);
    if (rc != 0)
        goto out;
    rc = -1;
    if (count_rows(s, Q_USER_ACTIVE, &user_id, &n) < 0)
        goto out;
    if (n >= lim->per_user) {
        rc = STORE_USER_FULL;
        goto out;
    }
    if (count_rows(s, Q_QUEUED_COUNT, NULL, &n) < 0)
        goto out;
    if (n >= lim->total) {
        rc = STORE_FULL;
        goto out;
    }
    st = prep(s, Q_SUB_INSERT);
    if (!st || bind(s, st, "iiIbii", user_id, pid, *version, source, len, now, now) < 0)
        goto out;
    if (insert_id(st, id) < 0) {
        fail(s, "insert submission");
        goto out;
    }
    done(st);
    st = NULL;
    rc = store_commit(s);
out:
    done(st);
    if (rc != 0)
        store_rollback(s);
    else
        announce(s);
    return rc;
}

/* The claimed row st stands on, as RETURNING gives it: (id, claim,
 * problem_id, version, source, ...): read into c, with the problem's slug.
 * st is stepped to its end, so that the UPDATE completes before the
 * COMMIT, and reset. Returns 0 or -1 (st reset either way). */
static int claimed_row(struct store *s, struct db_stmt *st, struct store_claim *c, const char *what)
{
    int r;
    c->id = db_column_int64(st, 0);
    c->claim = db_column_int64(st, 1);
    int64_t pid = db_column_int64(st, 2);
    c->version = (int)db_column_int64(st, 3);
    /* The bytes as stored (a BLOB, legal under SQLite's TEXT affinity,
     * included); NULL is an empty source. */
    const char *src = col_bytes(st, 4, &c->source_len);
    if (!(c->source = malloc(c->source_len + 1))) {
        snprintf(s->err, sizeof s->err, "out of memory");
        goto fail;
    }
    if (c->source_len)
        memcpy(c->source, src, c->source_len);
    c->source[c->source_len] = '\0';
    while ((r = db_step(st)) == DB_ROW)
        ;
    if (r != DB_DONE) {
        fail(s, what);
        goto fail;
    }
    done(st);
    st = prep(s, Q_SLUG_BY_ID);
    if (!st || bind(s, st, "i", pid) < 0)
        goto fail;
    if (db_step(st) != DB_ROW) {
        fail(s, what);
        goto fail;
    }
    copy_col(st, 0, c->slug, sizeof c->slug);
    done(st);
    return 0;
fail:
    done(st);
    return -1;
}

int store_submission_claim(struct store *s, int64_t now, struct store_claim *c)
{
    int rc = -1;
    struct db_stmt *st = NULL;
    memset(c, 0, sizeof *c);
    /* row locks alone keep two claims off one row (FOR UPDATE SKIP LOCKED
     * on PostgreSQL), so claims need not wait for other writers */
    if (begin_concurrent(s) < 0)
        return -1;
    st = prep(s, Q_SUB_CLAIM);
    if (!st || bind(s, st, "iti", now, s->holder[0] ? s->holder : NULL, s->lease_ms) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_DONE) {
        rc = STORE_NOT_FOUND;
        goto out;
    }
    if (r != DB_ROW) {
        fail(s, "claim");
        goto out;
    }
    c->queued_at = db_column_int64(st, 5);
    int64_t user_id = db_column_int64(st, 6);
    c->retries = (int)db_column_int64(st, 7);
    if (claimed_row(s, st, c, "claim") < 0)
        goto out;
    /* The round-robin's memory: this user was served now. */
    st = prep(s, Q_TURN_SERVED);
    if (!st || bind(s, st, "ii", user_id, now) < 0 || exec_step(s, st) < 0)
        goto out;
    done(st);
    st = NULL;
    rc = store_commit(s);
out:
    done(st);
    if (rc != 0) {
        store_rollback(s);
        store_claim_free(c);
    }
    return rc;
}

int store_bench_claim(struct store *s, int64_t now, struct store_claim *c)
{
    int rc = -1;
    struct db_stmt *st = NULL;
    memset(c, 0, sizeof *c);
    if (store_begin(s) < 0)
        return -1;
    st = prep(s, Q_BENCH_CLAIM);
    if (!st || bind(s, st, "tii", s->holder[0] ? s->holder : NULL, now, s->lease_ms) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_DONE) {
        rc = STORE_NOT_FOUND;
        goto out;
    }
    if (r != DB_ROW) {
        fail(s, "benchmark claim");
        goto out;
    }
    int claimed = claimed_row(s, st, c, "benchmark claim");
    st = NULL; /* reset by claimed_row */
    if (claimed == 0)
        rc = store_commit(s);
out:
    done(st);
    if (rc != 0) {
        store_rollback(s);
        store_claim_free(c);
    }
    return rc;
}

int store_bench_pooled(struct store *s, int64_t id, char **report, double *ms)
{
    struct db_stmt *st = prep(s, Q_BENCH_POOL);
    int rc = -1;
    *report = NULL;
    if (!st || bind(s, st, "i", id) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_DONE) {
        rc = STORE_NOT_FOUND;
    } else if (r == DB_ROW && col_text(st, 0)) {
        *ms = col_real(st, 1);
        if ((*report = strdup(col_text(st, 0))) != NULL)
            rc = 0;
        else
            snprintf(s->err, sizeof s->err, "out of memory");
    } else {
        fail(s, "benchmark pool");
    }
out:
    done(st);
    return rc;
}

int store_bench_finish(struct store *s, int64_t id, int64_t claim, const char *status,
                       const char *report, double ms, const char *verdict)
{
    struct db_stmt *st = prep(s, Q_BENCH_FINISH);
    int rc = -1;
    if (st && bind(s, st, "ttdtii", status, report, ms, verdict, id, claim) == 0 &&
        exec_step(s, st) == 0)
        rc = (int)db_changes(s->db) ? 0 : STORE_STALE;
    done(st);
    return rc;
}

int store_bench_requeue(struct store *s, int64_t id, int64_t claim, int *count)
{
    struct db_stmt *st = prep(s, Q_BENCH_REQUEUE);
    int rc = -1;
    if (st && bind(s, st, "ii", id, claim) == 0 && exec_step(s, st) == 0) {
        if (db_changes(s->db) > 0)
            announce(s);
        if (count)
            *count = (int)db_changes(s->db);
        rc = 0;
    }
    done(st);
    return rc;
}

/* ---- judge hosts and leases ---- */

void store_set_holder(struct store *s, const char *name, int64_t lease_ms)
{
    snprintf(s->holder, sizeof s->holder, "%s", name ? name : "");
    s->lease_ms = lease_ms;
}

/* Runs statement q bound to fmt's arguments and adds the rows it changed
 * to *count (may be NULL). */
static int change_rows(struct store *s, enum q q, int *count, const char *fmt, ...)
{
    struct db_stmt *st = prep(s, q);
    int r = 0, rc = -1;
    va_list ap;
    if (!st)
        return -1;
    va_start(ap, fmt);
    for (int i = 1; *fmt && r == 0; fmt++, i++)
        r = *fmt == 'i' ? db_bind_int64(st, i, va_arg(ap, int64_t))
                        : db_bind_text(st, i, va_arg(ap, const char *));
    va_end(ap);
    if (r != 0)
        fail(s, "bind");
    else if (exec_step(s, st) == 0) {
        if (count)
            *count += (int)db_changes(s->db);
        rc = 0;
    }
    done(st);
    return rc;
}

int store_host_beat(struct store *s, const struct store_host *h, int64_t now)
{
    struct db_stmt *st = NULL;
    int64_t until = now + s->lease_ms;
    if (store_begin(s) < 0)
        return -1;
    st = prep(s, Q_HOST_BEAT);
    if (!st ||
        bind(s, st, "ttiiiit", h->name, h->hostname, h->pid, (int64_t)h->workers, (int64_t)h->busy,
             now, h->stats) < 0 ||
        exec_step(s, st) < 0)
        goto fail;
    done(st);
    st = NULL;
    if (change_rows(s, Q_LEASE_RENEW, NULL, "it", until, h->name) < 0 ||
        change_rows(s, Q_BENCH_LEASE_RENEW, NULL, "it", until, h->name) < 0)
        goto fail;
    return store_commit(s);
fail:
    done(st);
    store_rollback(s);
    return -1;
}

int store_leases_expire(struct store *s, int64_t now, int *judging, int *benchmarks)
{
    if (judging)
        *judging = 0;
    if (benchmarks)
        *benchmarks = 0;
    if (change_rows(s, Q_LEASE_EXPIRE, judging, "i", now) < 0 ||
        change_rows(s, Q_BENCH_LEASE_EXPIRE, benchmarks, "i", now) < 0)
        return -1;
    if ((judging && *judging) || (benchmarks && *benchmarks))
        announce(s);
    return 0;
}

int store_leases_release(struct store *s, const char *name, int *judging, int *benchmarks)
{
    if (judging)
        *judging = 0;
    if (benchmarks)
        *benchmarks = 0;
    if (change_rows(s, Q_LEASE_RELEASE, judging, "t", name) < 0 ||
        change_rows(s, Q_BENCH_LEASE_RELEASE, benchmarks, "t", name) < 0)
        return -1;
    if ((judging && *judging) || (benchmarks && *benchmarks))
        announce(s);
    return 0;
}

int store_hosts(struct store *s, int64_t seen_since,
                int (*fn)(void *arg, const struct store_host *h), void *arg)
{
    struct db_stmt *st = prep(s, Q_HOSTS);
    int rc = -1, r;
    if (!st || bind(s, st, "i", seen_since) < 0)
        goto out;
    while ((r = db_step(st)) == DB_ROW) {
        struct store_host h = {0};
        copy_col(st, 0, h.name, sizeof h.name);
        copy_col(st, 1, h.hostname, sizeof h.hostname);
        h.pid = db_column_int64(st, 2);
        h.workers = (int)db_column_int64(st, 3);
        h.busy = (int)db_column_int64(st, 4);
        h.started_at = db_column_int64(st, 5);
        h.seen_at = db_column_int64(st, 6);
        h.stats = db_column_text(st, 7);
        if (fn(arg, &h) < 0)
            goto out;
    }
    if (r != DB_DONE) {
        fail(s, "judge hosts");
        goto out;
    }
    rc = 0;
out:
    done(st);
    return rc;
}

int store_host_remove(struct store *s, const char *name)
{
    return change_rows(s, Q_HOST_REMOVE, NULL, "t", name);
}

void store_claim_free(struct store_claim *c)
{
    free(c->source);
    c->source = NULL;
}

int store_submission_progress(struct store *s, int64_t id, int64_t claim, const char *text)
{
    struct db_stmt *st = prep(s, Q_SUB_PROGRESS);
    int rc = -1;
    if (st && bind(s, st, "tii", text, id, claim) == 0)
        rc = exec_step(s, st);
    done(st);
    return rc;
}

int store_submission_finish(struct store *s, int64_t id, int64_t claim, int64_t now,
                            const struct store_result *r)
{
    int rc = -1;
    struct db_stmt *st = NULL;
    if (store_begin(s) < 0)
        return -1;
    st = prep(s, Q_SUB_FINISH);
    if (!st ||
        bind(s, st, "tdddttiiii", r->verdict, r->score, r->time_ms, r->compile_ms, r->report_json,
             r->internal_message, now, (int64_t)r->bench, id, claim) < 0 ||
        exec_step(s, st) < 0)
        goto out;
    if ((int)db_changes(s->db) == 0) {
        rc = STORE_STALE;
        goto out;
    }
    done(st);
    st = NULL;
    rc = store_commit(s);
out:
    done(st);
    if (rc != 0)
        store_rollback(s);
    else if (r->bench)
        announce(s); /* a benchmark to run */
    return rc;
}

int store_submission_requeue(struct store *s, int64_t id, int64_t claim, int *count)
{
    struct db_stmt *st = prep(s, id ? Q_SUB_REQUEUE_ONE : Q_SUB_REQUEUE_ALL);
    int rc = -1;
    if (!st)
        return -1;
    if (id && bind(s, st, "ii", id, claim) < 0)
        goto out;
    if (exec_step(s, st) < 0)
        goto out;
    if (db_changes(s->db) > 0)
        announce(s);
    if (count)
        *count = (int)db_changes(s->db);
    rc = 0;
out:
    done(st);
    return rc;
}

int store_submission_retry(struct store *s, int64_t id, int64_t claim, int64_t retry_at)
{
    struct db_stmt *st = prep(s, Q_SUB_RETRY);
    int rc = -1;
    if (st && bind(s, st, "iii", retry_at, id, claim) == 0 && exec_step(s, st) == 0)
        rc = (int)db_changes(s->db) ? 0 : STORE_STALE;
    done(st);
    if (rc == 0)
        announce(s); /* due at retry_at: the listeners also look every few seconds */
    return rc;
}

int store_submission_cancel(struct store *s, int64_t id, int64_t owner_id, char *status, size_t len)
{
    struct db_stmt *st = NULL;
    int rc = -1;
    if (len)
        status[0] = '\0';
    if (store_begin(s) < 0)
        return -1;
    st = prep(s, Q_SUB_STATUS);
    if (!st || bind(s, st, "i", id) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_DONE || (r == DB_ROW && owner_id && db_column_int64(st, 0) != owner_id)) {
        rc = STORE_NOT_FOUND;
        goto out;
    }
    if (r != DB_ROW) {
        fail(s, "cancel");
        goto out;
    }
    copy_col(st, 1, status, len);
    if (strcmp(status, "queued")) {
        rc = STORE_STALE;
        goto out;
    }
    done(st);
    /* Inside the write transaction no worker can claim it meanwhile. */
    st = prep(s, Q_SUB_CANCEL);
    if (!st || bind(s, st, "i", id) < 0 || exec_step(s, st) < 0)
        goto out;
    done(st);
    st = NULL;
    snprintf(status, len, "cancelled");
    rc = store_commit(s);
out:
    done(st);
    if (rc != 0)
        store_rollback(s);
    return rc;
}

int store_submission_get(struct store *s, int64_t id, store_submission_fn *fn, void *arg)
{
    struct db_stmt *st = prep(s, Q_SUB_GET);
    int rc = -1;
    if (!st || bind(s, st, "i", id) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_DONE) {
        rc = STORE_NOT_FOUND;
        goto out;
    }
    if (r != DB_ROW) {
        fail(s, "submission");
        goto out;
    }
    /* The text and its size together; the members of an initializer list
     * are evaluated in no fixed order, hence these two first. */
    size_t source_len;
    const char *source = col_bytes(st, 13, &source_len);
    struct store_submission_row row = {
        .id = db_column_int64(st, 0),
        .problem = col_text(st, 1),
        .problem_version = (int)db_column_int64(st, 2),
        .user = col_text(st, 3),
        .status = col_text(st, 4),
        .progress = col_text(st, 5),
        .verdict = col_text(st, 6),
        .score = col_real(st, 7),
        .time_ms = col_real(st, 8),
        .compile_ms = col_real(st, 9),
        .created_at = db_column_int64(st, 10),
        .judged_at = db_column_int64(st, 11),
        .report = col_text(st, 12),
        .source = source,
        .source_len = source_len,
        .user_id = db_column_int64(st, 14),
        .hints_opened = (int)db_column_int64(st, 15),
        .bench_status = col_text(st, 16),
        .bench_report = col_text(st, 17),
    };
    rc = fn(arg, &row) < 0 ? stopped(s, "submission") : 0;
out:
    done(st);
    return rc;
}

int store_submission_list(struct store *s, const struct store_list_filter *f,
                          store_submission_fn *fn, void *arg)
{
    /* The filter set varies per request, so this one statement is built and
     * prepared per call; every value is bound, never spliced into the text. */
    char q[1024];
    bool pg = db_backend(s->db) == DB_POSTGRESQL; /* usernames: see sql_pg */
    struct db_stmt *st = NULL;
    int rc = -1, n = 0, r;
    snprintf(q, sizeof q,
             "SELECT s.id, p.slug, s.problem_version, u.username, s.status, s.verdict, s.score,"
             " s.time_ms, s.created_at, s.judged_at, s.progress, s.user_id, " HINTS_BEFORE
             " FROM submissions s JOIN problems p ON p.id = s.problem_id"
             " JOIN users u ON u.id = s.user_id WHERE TRUE%s%s%s%s%s%s"
             " ORDER BY s.id DESC LIMIT ?",
             f->user_id ? " AND s.user_id = ?" : "", f->slug ? " AND p.slug = ?" : "",
             f->username ? (pg ? " AND lower(u.username) = lower(?)" : " AND u.username = ?") : "",
             f->verdict ? " AND s.verdict = ?" : "", f->status ? " AND s.status = ?" : "",
             f->before_id ? " AND s.id < ?" : "");
    if (!(st = db_prepare(s->db, q))) {
        fail(s, "prepare list");
        goto out;
    }
    r = 0;
    if (f->user_id)
        r = db_bind_int64(st, ++n, f->user_id);
    if (r == 0 && f->slug)
        r = db_bind_text(st, ++n, f->slug);
    if (r == 0 && f->username)
        r = db_bind_text(st, ++n, f->username);
    if (r == 0 && f->verdict)
        r = db_bind_text(st, ++n, f->verdict);
    if (r == 0 && f->status)
        r = db_bind_text(st, ++n, f->status);
    if (r == 0 && f->before_id)
        r = db_bind_int64(st, ++n, f->before_id);
    if (r == 0)
        r = db_bind_int64(st, ++n, f->limit);
    if (r != 0) {
        fail(s, "bind list");
        goto out;
    }
    while ((r = db_step(st)) == DB_ROW) {
        struct store_submission_row row = {
            .id = db_column_int64(st, 0),
            .problem = col_text(st, 1),
            .problem_version = (int)db_column_int64(st, 2),
            .user = col_text(st, 3),
            .status = col_text(st, 4),
            .verdict = col_text(st, 5),
            .score = col_real(st, 6),
            .time_ms = col_real(st, 7),
            .compile_ms = NAN,
            .created_at = db_column_int64(st, 8),
            .judged_at = db_column_int64(st, 9),
            .progress = col_text(st, 10),
            .user_id = db_column_int64(st, 11),
            .hints_opened = (int)db_column_int64(st, 12),
        };
        if (fn(arg, &row) < 0) {
            stopped(s, "list");
            goto out;
        }
    }
    if (r != DB_DONE) {
        fail(s, "list");
        goto out;
    }
    rc = 0;
out:
    db_finalize(st);
    return rc;
}

int store_rejudge(struct store *s, const char *slug, int64_t submission_id, int64_t requested_by,
                  int64_t now, int *count, int64_t *rejudge_id)
{
    int64_t pid, rid;
    int current, rc;
    char sub_slug[80], status[16];
    struct db_stmt *st = NULL;
    if (store_begin(s) < 0)
        return -1;
    if (submission_id > 0) {
        st = prep(s, Q_SUB_PROBLEM);
        if (!st || bind(s, st, "i", submission_id) < 0) {
            rc = -1;
            goto out;
        }
        int r = db_step(st);
        if (r != DB_ROW) {
            rc = r == DB_DONE ? STORE_NOT_FOUND : fail(s, "rejudge");
            goto out;
        }
        copy_col(st, 0, sub_slug, sizeof sub_slug);
        copy_col(st, 1, status, sizeof status);
        done(st);
        st = NULL;
        if (strcmp(status, "done")) {
            rc = STORE_STALE;
            goto out;
        }
        slug = sub_slug;
    }
    rc = problem_by_slug(s, slug, &pid, &current);
    if (rc != 0)
        goto out;
    rc = -1;
    st = prep(s, Q_REJUDGE_RECORD);
    if (!st || bind(s, st, "iiii", pid, submission_id, requested_by, now) < 0)
        goto out;
    if (insert_id(st, &rid) < 0) {
        fail(s, "rejudge");
        goto out;
    }
    done(st);
    st = prep(s, submission_id > 0 ? Q_REJUDGE_ITEM_ONE : Q_REJUDGE_ITEMS);
    if (!st || bind(s, st, "ii", rid, submission_id > 0 ? submission_id : pid) < 0 ||
        exec_step(s, st) < 0)
        goto out;
    done(st);
    st = prep(s, submission_id > 0 ? Q_REJUDGE_ONE : Q_REJUDGE);
    if (!st || bind(s, st, "Iii", current, now, submission_id > 0 ? submission_id : pid) < 0 ||
        exec_step(s, st) < 0)
        goto out;
    *count = (int)db_changes(s->db);
    done(st);
    st = NULL;
    st = prep(s, Q_REJUDGE_COUNT);
    if (!st || bind(s, st, "Ii", *count, rid) < 0 || exec_step(s, st) < 0)
        goto out;
    done(st);
    st = NULL;
    if (rejudge_id)
        *rejudge_id = rid;
    rc = store_commit(s);
out:
    done(st);
    if (rc != 0)
        store_rollback(s);
    else if (*count > 0)
        announce(s);
    return rc;
}

int store_queue_depth(struct store *s, int64_t *queued, int64_t *judging)
{
    struct db_stmt *st = prep(s, Q_DEPTH);
    int rc = -1;
    if (!st)
        return -1;
    if (db_step(st) == DB_ROW) {
        *queued = db_column_int64(st, 0);
        *judging = db_column_int64(st, 1);
        rc = 0;
    } else {
        fail(s, "queue depth");
    }
    done(st);
    return rc;
}

int store_queue_order(struct store *s, struct store_queue_entry **out, size_t *n)
{
    struct db_stmt *st = prep(s, Q_QUEUE_ORDER);
    struct store_queue_entry *v = NULL;
    size_t cap = 0;
    int rc = -1, r;
    *out = NULL;
    *n = 0;
    if (!st)
        return -1;
    while ((r = db_step(st)) == DB_ROW) {
        if (ARRAY_RESERVE(v, *n, cap, 64) < 0) {
            snprintf(s->err, sizeof s->err, "out of memory");
            goto out;
        }
        v[*n] = (struct store_queue_entry){.id = db_column_int64(st, 0),
                                           .user_id = db_column_int64(st, 1),
                                           .retry_at = db_column_int64(st, 2)};
        (*n)++;
    }
    if (r != DB_DONE) {
        fail(s, "queue order");
        goto out;
    }
    *out = v;
    v = NULL;
    rc = 0;
out:
    if (rc != 0)
        *n = 0;
    free(v);
    done(st);
    return rc;
}

int store_queue_stats(struct store *s, int64_t *judging, double *mean_judge_ms)
{
    struct db_stmt *st = prep(s, Q_MEAN_JUDGE);
    int rc = -1;
    if (!st)
        return -1;
    if (db_step(st) == DB_ROW) {
        *judging = db_column_int64(st, 0);
        *mean_judge_ms = db_column_double(st, 1); /* NULL reads as 0 */
        rc = 0;
    } else {
        fail(s, "queue stats");
    }
    done(st);
    return rc;
}

int store_leaderboard(struct store *s, const char *slug, int limit, struct store_problem_version *v,
                      int (*fn)(void *arg, const struct store_leader_row *row), void *arg)
{
    struct db_stmt *st = NULL;
    int rc, r;
    rc = store_problem_current(s, slug, v);
    if (rc != 0)
        return rc;
    rc = -1;
    st = prep(s, Q_LEADERBOARD);
    if (!st || bind(s, st, "iII", v->problem_id, v->version, limit) < 0)
        goto out;
    while ((r = db_step(st)) == DB_ROW) {
        struct store_leader_row row = {.user = col_text(st, 0),
                                       .time_ms = col_real(st, 1),
                                       .submission_id = db_column_int64(st, 2),
                                       .created_at = db_column_int64(st, 3),
                                       .display_name = col_text(st, 4),
                                       .bench_ms = col_real(st, 5),
                                       .bench_report = col_text(st, 6)};
        if (fn(arg, &row) < 0) {
            stopped(s, "leaderboard");
            goto out;
        }
    }
    if (r != DB_DONE) {
        fail(s, "leaderboard");
        goto out;
    }
    rc = 0;
out:
    done(st);
    return rc;
}

int store_grades(struct store *s, int (*fn)(void *arg, const struct store_grade_row *row),
                 void *arg)
{
    struct db_stmt *st = prep(s, Q_GRADES);
    int rc = -1, r;
    if (!st)
        return -1;
    while ((r = db_step(st)) == DB_ROW) {
        struct store_grade_row row = {.user = col_text(st, 0),
                                      .problem = col_text(st, 1),
                                      .best_score = db_column_double(st, 2),
                                      .created_at = db_column_int64(st, 3)};
        if (fn(arg, &row) < 0) {
            stopped(s, "grades");
            goto out;
        }
    }
    if (r != DB_DONE) {
        fail(s, "grades");
        goto out;
    }
    rc = 0;
out:
    done(st);
    return rc;
}

/* ---- hints and walkthroughs ---- */

/* One integer from st's first column (bound by the caller), or -1. */
static int read_int(struct store *s, struct db_stmt *st, const char *what, int64_t *v)
{
    int r = db_step(st);
    if (r != DB_ROW)
        return fail(s, what);
    *v = db_column_int64(st, 0);
    return 0;
}

int store_hint_open(struct store *s, int64_t user_id, const char *slug, int version, int n,
                    int64_t now, int64_t *opened_at, int *opened)
{
    int64_t pid, count = 0;
    int current, rc, r;
    struct db_stmt *st = NULL;
    if (store_begin(s) < 0)
        return -1;
    if ((rc = problem_by_slug(s, slug, &pid, &current)) != 0)
        goto out;
    rc = -1;
    st = prep(s, Q_HINT_COUNT);
    if (!st || bind(s, st, "ii", user_id, pid) < 0 || read_int(s, st, "hints", &count) < 0)
        goto out;
    done(st);
    *opened = (int)count;
    st = prep(s, Q_HINT_GET);
    if (!st || bind(s, st, "iiI", user_id, pid, n) < 0)
        goto out;
    if ((r = db_step(st)) == DB_ROW) { /* opened before: nothing changes */
        *opened_at = db_column_int64(st, 0);
        rc = 0;
        goto out;
    }
    if (r != DB_DONE) {
        fail(s, "hint");
        goto out;
    }
    done(st);
    st = NULL;
    /* In order: the rows are 1..count, so only count + 1 is next. */
    if (n != count + 1) {
        rc = STORE_STALE;
        goto out;
    }
    st = prep(s, Q_HINT_INSERT);
    if (!st || bind(s, st, "iiIii", user_id, pid, n, (int64_t)version, now) < 0 ||
        exec_step(s, st) < 0)
        goto out;
    done(st);
    st = NULL;
    *opened_at = now;
    *opened = n;
    rc = store_commit(s);
out:
    done(st);
    store_rollback(s); /* the read-only paths end here; nothing after a commit */
    return rc;
}

int store_hint_opens(struct store *s, const char *slug, int64_t user_id,
                     int (*fn)(void *arg, const struct store_hint_row *row), void *arg)
{
    struct db_stmt *st = prep(s, Q_HINT_LIST);
    int rc = -1, r;
    if (!st || bind(s, st, "ti", slug, user_id) < 0)
        goto out;
    while ((r = db_step(st)) == DB_ROW) {
        struct store_hint_row row = {.n = (int)db_column_int64(st, 0),
                                     .problem_version = (int)db_column_int64(st, 1),
                                     .opened_at = db_column_int64(st, 2),
                                     .user = col_text(st, 3)};
        if (fn(arg, &row) < 0) {
            stopped(s, "hints");
            goto out;
        }
    }
    if (r != DB_DONE) {
        fail(s, "hints");
        goto out;
    }
    rc = 0;
out:
    done(st);
    return rc;
}

int store_walkthrough(struct store *s, const char *slug, int64_t user_id,
                      struct store_walkthrough *w)
{
    struct db_stmt *st = prep(s, Q_WALK_GET);
    int rc = -1;
    if (!st || bind(s, st, "ti", slug, user_id) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_ROW) {
        w->date_set = (int)db_column_int64(st, 0) != 0;
        w->opens_at = db_column_int64(st, 1);
        w->accepted = (int)db_column_int64(st, 2) != 0;
        rc = 0;
    } else {
        rc = r == DB_DONE ? STORE_NOT_FOUND : fail(s, "walkthrough");
    }
out:
    done(st);
    return rc;
}

int store_walkthrough_set(struct store *s, const char *slug, int64_t opens_at, int64_t by,
                          int64_t now)
{
    int64_t pid;
    int current, rc;
    struct db_stmt *st = NULL;
    if ((rc = problem_by_slug(s, slug, &pid, &current)) != 0)
        return rc;
    st = prep(s, Q_WALK_SET);
    rc = !st || bind(s, st, "iiii", pid, opens_at, by, now) < 0 || exec_step(s, st) < 0 ? -1 : 0;
    done(st);
    return rc;
}

/* ---- problem states (issue 11) ---- */

int store_problem_set_state(struct store *s, const char *slug, const char *state,
                            int64_t publish_at)
{
    struct db_stmt *st = prep(s, Q_PROBLEM_SET_STATE);
    int rc = -1;
    if (!st || bind(s, st, "tit", state, publish_at, slug) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_ROW)
        rc = 0;
    else if (r == DB_DONE)
        rc = STORE_NOT_FOUND;
    else
        fail(s, "problem state");
out:
    done(st);
    return rc;
}

/* Runs one of problem_delete_rest with the problem's id. */
static int delete_rest(struct store *s, const char *text, int64_t pid)
{
    struct db_stmt *st = NULL;
    int rc = -1;
    if (!(st = db_prepare(s->db, text)))
        return fail(s, "prepare");
    if (bind(s, st, "i", pid) == 0)
        rc = exec_step(s, st);
    db_finalize(st);
    return rc;
}

int store_problem_delete(struct store *s, const char *slug)
{
    int64_t pid, n = 0;
    int current = 0;
    struct db_stmt *st = NULL;
    if (store_begin(s) < 0)
        return -1;
    int rc = problem_by_slug(s, slug, &pid, &current);
    if (rc != 0)
        goto out;
    if (count_rows(s, Q_PROBLEM_SUBMISSIONS, &pid, &n) < 0) {
        rc = -1;
        goto out;
    }
    if (n > 0) {
        rc = STORE_EXISTS;
        goto out;
    }
    st = prep(s, Q_PROBLEM_DELETE);
    rc = !st || bind(s, st, "i", pid) < 0 || exec_step(s, st) < 0 ? -1 : 0;
    done(st);
    for (size_t i = 0; rc == 0 && i < sizeof problem_delete_rest / sizeof *problem_delete_rest; i++)
        rc = delete_rest(s, problem_delete_rest[i], pid);
out:
    if (rc == 0)
        return store_commit(s);
    store_rollback(s);
    return rc;
}

/* ---- passwords (issue 11) ---- */

int store_user_set_password(struct store *s, int64_t user_id, const char *pwhash, bool must_change,
                            const char *keep_token_hash, int *ended)
{
    struct db_stmt *st = NULL;
    if (store_begin(s) < 0)
        return -1;
    st = prep(s, Q_USER_SET_PASSWORD);
    if (!st || bind(s, st, "tIi", pwhash, must_change ? 1 : 0, user_id) < 0 || exec_step(s, st) < 0)
        goto fail;
    int changed = (int)db_changes(s->db);
    done(st);
    if (changed == 0) {
        store_rollback(s);
        return STORE_NOT_FOUND;
    }
    st = prep(s, Q_SESSIONS_END);
    if (!st || bind(s, st, "it", user_id, keep_token_hash) < 0 || exec_step(s, st) < 0)
        goto fail;
    if (ended)
        *ended = (int)db_changes(s->db);
    done(st);
    return store_commit(s);
fail:
    done(st);
    store_rollback(s);
    return -1;
}

/* ---- rejudges (issue 11) ---- */

static void read_rejudge(struct db_stmt *st, struct store_rejudge *r)
{
    r->id = db_column_int64(st, 0);
    copy_col(st, 1, r->slug, sizeof r->slug);
    r->submission_id = db_column_int64(st, 2);
    copy_col(st, 3, r->requested_by, sizeof r->requested_by);
    r->requested_at = db_column_int64(st, 4);
    r->count = (int)db_column_int64(st, 5);
}

/* The judgement columns from col on: status, verdict, score, version. */
static void read_judgement(struct db_stmt *st, int col, struct store_judgement *j)
{
    copy_col(st, col, j->status, sizeof j->status);
    copy_col(st, col + 1, j->verdict, sizeof j->verdict);
    j->score = col_real(st, col + 2);
    j->version = (int)db_column_int64(st, col + 3);
}

int store_rejudge_get(struct store *s, int64_t id, struct store_rejudge *head,
                      int (*fn)(void *arg, const struct store_rejudge_item *item), void *arg)
{
    struct db_stmt *st = prep(s, Q_REJUDGE_HEAD);
    int rc = -1, r;
    if (!st || bind(s, st, "i", id) < 0)
        goto out;
    r = db_step(st);
    if (r != DB_ROW) {
        rc = r == DB_DONE ? STORE_NOT_FOUND : fail(s, "rejudge");
        goto out;
    }
    read_rejudge(st, head);
    done(st);
    st = prep(s, Q_REJUDGE_REPORT);
    if (!st || bind(s, st, "i", id) < 0)
        goto out;
    while ((r = db_step(st)) == DB_ROW) {
        struct store_rejudge_item it;
        it.submission_id = db_column_int64(st, 0);
        copy_col(st, 1, it.username, sizeof it.username);
        read_judgement(st, 2, &it.before);
        read_judgement(st, 6, &it.after);
        it.superseded_by = db_column_int64(st, 10);
        if (fn(arg, &it) < 0) {
            rc = stopped(s, "rejudge");
            goto out;
        }
    }
    rc = r == DB_DONE ? 0 : fail(s, "rejudge report");
out:
    done(st);
    return rc;
}

int store_rejudge_list(struct store *s, int limit,
                       int (*fn)(void *arg, const struct store_rejudge *r), void *arg)
{
    struct db_stmt *st = prep(s, Q_REJUDGE_LIST);
    int rc = -1, r;
    if (!st || bind(s, st, "I", limit) < 0)
        goto out;
    while ((r = db_step(st)) == DB_ROW) {
        struct store_rejudge x;
        read_rejudge(st, &x);
        if (fn(arg, &x) < 0) {
            rc = stopped(s, "rejudges");
            goto out;
        }
    }
    rc = r == DB_DONE ? 0 : fail(s, "rejudges");
out:
    done(st);
    return rc;
}

int store_submission_history(struct store *s, int64_t id,
                             int (*fn)(void *arg, const struct store_history_row *row), void *arg)
{
    struct db_stmt *st = prep(s, Q_SUB_HISTORY);
    int rc = -1, r;
    if (!st || bind(s, st, "i", id) < 0)
        goto out;
    while ((r = db_step(st)) == DB_ROW) {
        struct store_history_row h;
        h.rejudge_id = db_column_int64(st, 0);
        h.replaced_at = db_column_int64(st, 1);
        read_judgement(st, 2, &h.was);
        h.time_ms = col_real(st, 6);
        h.judged_at = db_column_int64(st, 7);
        if (fn(arg, &h) < 0) {
            rc = stopped(s, "history");
            goto out;
        }
    }
    rc = r == DB_DONE ? 0 : fail(s, "history");
out:
    done(st);
    return rc;
}

/* ---- assignments (issue 11) ---- */

static void read_assignment(struct db_stmt *st, struct store_assignment *a)
{
    a->id = db_column_int64(st, 0);
    copy_col(st, 1, a->slug, sizeof a->slug);
    copy_col(st, 2, a->title, sizeof a->title);
    a->opens_at = db_column_int64(st, 3);
    a->due_at = db_column_int64(st, 4);
    a->cutoff_at = db_column_int64(st, 5);
    a->penalty_per_day = db_column_double(st, 6);
}

/* Runs a statement with one int64 parameter and no rows. */
static int exec_id(struct store *s, enum q q, int64_t id)
{
    struct db_stmt *st = prep(s, q);
    int rc = st && bind(s, st, "i", id) == 0 ? exec_step(s, st) : -1;
    done(st);
    return rc;
}

int store_assignment_put(struct store *s, const char *old_slug, const struct store_assignment *a,
                         const char *const *problems, size_t n, int64_t by, int64_t now,
                         char *bad_problem, size_t bad_len)
{
    struct store_assignment cur;
    struct db_stmt *st = NULL;
    int64_t id;
    int rc = -1, r;
    if (store_begin(s) < 0)
        return -1;
    if (old_slug) {
        if ((rc = store_assignment_get(s, old_slug, &cur, NULL, NULL)) != 0)
            goto out;
        rc = -1;
        id = cur.id;
        st = prep(s, Q_ASSIGNMENT_UPDATE);
        if (!st || bind(s, st, "ttiiidi", a->slug, a->title, a->opens_at, a->due_at, a->cutoff_at,
                        a->penalty_per_day, id) < 0)
            goto out;
    } else {
        st = prep(s, Q_ASSIGNMENT_INSERT);
        if (!st || bind(s, st, "ttiiidii", a->slug, a->title, a->opens_at, a->due_at, a->cutoff_at,
                        a->penalty_per_day, by, now) < 0)
            goto out;
    }
    r = old_slug ? (db_step(st) == DB_DONE ? 0 : -1) : insert_id(st, &id);
    if (r < 0) {
        rc = db_errclass(s->db) == DB_UNIQUE ? STORE_EXISTS : fail(s, "assignment");
        goto out;
    }
    done(st);
    st = NULL;
    if (exec_id(s, Q_ASSIGNMENT_PROBLEMS_CLEAR, id) < 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        st = prep(s, Q_ASSIGNMENT_PROBLEM_ADD);
        if (!st || bind(s, st, "iIt", id, (int)i, problems[i]) < 0 || exec_step(s, st) < 0)
            goto out;
        if ((int)db_changes(s->db) != 1) {
            snprintf(bad_problem, bad_len, "%s", problems[i]);
            rc = STORE_NOT_FOUND;
            goto out;
        }
        done(st);
        st = NULL;
    }
    rc = store_commit(s);
out:
    done(st);
    if (rc != 0)
        store_rollback(s);
    return rc;
}

int store_assignment_get(struct store *s, const char *slug, struct store_assignment *a,
                         int (*fn)(void *arg, const char *slug), void *arg)
{
    struct db_stmt *st = prep(s, Q_ASSIGNMENT_GET);
    int rc = -1, r;
    if (!st || bind(s, st, "t", slug) < 0)
        goto out;
    r = db_step(st);
    if (r != DB_ROW) {
        rc = r == DB_DONE ? STORE_NOT_FOUND : fail(s, "assignment");
        goto out;
    }
    read_assignment(st, a);
    done(st);
    st = NULL;
    rc = fn ? store_assignment_problems(s, a->id, fn, arg) : 0;
out:
    done(st);
    return rc;
}

int store_assignment_problems(struct store *s, int64_t id, int (*fn)(void *arg, const char *slug),
                              void *arg)
{
    struct db_stmt *st = prep(s, Q_ASSIGNMENT_PROBLEMS);
    int rc = -1, r;
    if (!st || bind(s, st, "i", id) < 0)
        goto out;
    while ((r = db_step(st)) == DB_ROW)
        if (fn(arg, col_text(st, 0)) < 0) {
            rc = stopped(s, "assignment problems");
            goto out;
        }
    rc = r == DB_DONE ? 0 : fail(s, "assignment problems");
out:
    done(st);
    return rc;
}

int store_assignment_list(struct store *s, int (*fn)(void *arg, const struct store_assignment *a),
                          void *arg)
{
    struct db_stmt *st = prep(s, Q_ASSIGNMENT_LIST);
    int rc = -1, r;
    if (!st)
        return -1;
    while ((r = db_step(st)) == DB_ROW) {
        struct store_assignment a;
        read_assignment(st, &a);
        if (fn(arg, &a) < 0) {
            rc = stopped(s, "assignments");
            goto out;
        }
    }
    rc = r == DB_DONE ? 0 : fail(s, "assignments");
out:
    done(st);
    return rc;
}

int store_assignment_delete(struct store *s, const char *slug)
{
    struct db_stmt *st = prep(s, Q_ASSIGNMENT_DELETE);
    int rc = -1;
    if (st && bind(s, st, "t", slug) == 0 && exec_step(s, st) == 0)
        rc = (int)db_changes(s->db) ? 0 : STORE_NOT_FOUND;
    done(st);
    return rc;
}

int store_students(struct store *s, int64_t only,
                   int (*fn)(void *arg, const struct store_student *u), void *arg)
{
    struct db_stmt *st = prep(s, Q_STUDENTS);
    int rc = -1, r;
    if (!st || bind(s, st, "i", only) < 0)
        goto out;
    while ((r = db_step(st)) == DB_ROW) {
        struct store_student u = {.id = db_column_int64(st, 0),
                                  .username = col_text(st, 1),
                                  .student_id = col_text(st, 2),
                                  .display_name = col_text(st, 3)};
        if (fn(arg, &u) < 0) {
            rc = stopped(s, "students");
            goto out;
        }
    }
    rc = r == DB_DONE ? 0 : fail(s, "students");
out:
    done(st);
    return rc;
}

int store_assignment_submissions(struct store *s, const struct store_assignment *a, int64_t user_id,
                                 int (*fn)(void *arg, const struct store_window_row *row),
                                 void *arg)
{
    struct db_stmt *st = prep(s, Q_ASSIGNMENT_SUBMISSIONS);
    int rc = -1, r;
    if (!st || bind(s, st, "iiii", a->id, a->opens_at, a->cutoff_at, user_id) < 0)
        goto out;
    while ((r = db_step(st)) == DB_ROW) {
        struct store_window_row row = {.id = db_column_int64(st, 0),
                                       .user_id = db_column_int64(st, 1),
                                       .problem = col_text(st, 2),
                                       .score = col_real(st, 3),
                                       .created_at = db_column_int64(st, 4),
                                       .verdict = col_text(st, 5)};
        if (fn(arg, &row) < 0) {
            rc = stopped(s, "assignment submissions");
            goto out;
        }
    }
    rc = r == DB_DONE ? 0 : fail(s, "assignment submissions");
out:
    done(st);
    return rc;
}

int store_user_set_names(struct store *s, const char *username, const char *student_id,
                         const char *display_name)
{
    struct db_stmt *st = prep(s, Q_USER_SET_NAMES);
    int rc = -1;
    if (st && bind(s, st, "ttt", student_id, display_name, username) == 0) {
        int r = db_step(st);
        rc = r == DB_ROW ? 0 : r == DB_DONE ? STORE_NOT_FOUND : fail(s, "user names");
    }
    done(st);
    return rc;
}

int store_user_import(struct store *s, const char *username, const char *pwhash,
                      const char *student_id, const char *display_name, int64_t now)
{
    struct db_stmt *st = prep(s, Q_USER_IMPORT);
    int rc = -1;
    if (st && bind(s, st, "ttitt", username, pwhash, now, student_id, display_name) == 0) {
        int r = db_step(st);
        rc = r == DB_DONE ? 0 : db_errclass(s->db) == DB_UNIQUE ? STORE_EXISTS : fail(s, "import");
    }
    done(st);
    return rc;
}

/* ---- drafts (issue 11) ---- */

int store_draft_get(struct store *s, int64_t user_id, const char *slug, struct store_draft *d)
{
    struct db_stmt *st = prep(s, Q_DRAFT_GET);
    int rc = -1;
    memset(d, 0, sizeof *d);
    if (!st || bind(s, st, "it", user_id, slug) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_ROW) {
        size_t n;
        const char *t = col_bytes(st, 0, &n);
        if (!(d->source = malloc(n + 1))) {
            snprintf(s->err, sizeof s->err, "draft: out of memory");
            goto out;
        }
        memcpy(d->source, t ? t : "", n);
        d->source[n] = '\0';
        d->len = n;
        d->revision = db_column_int64(st, 1);
        d->updated_at = db_column_int64(st, 2);
        rc = 0;
    } else {
        rc = r == DB_DONE ? STORE_NOT_FOUND : fail(s, "draft");
    }
out:
    done(st);
    return rc;
}

int store_draft_put(struct store *s, int64_t user_id, const char *slug, const char *source,
                    size_t len, int64_t seen_revision, int64_t now, int64_t *revision)
{
    struct db_stmt *st = prep(s, Q_DRAFT_PUT);
    int rc = -1;
    if (!st || bind(s, st, "itbii", user_id, slug, source, len, seen_revision, now) < 0)
        goto out;
    int r = db_step(st);
    if (r == DB_ROW) {
        *revision = db_column_int64(st, 0);
        rc = 0;
    } else if (r == DB_DONE) {
        /* no row: an unknown problem, or the revision moved on */
        rc = (int)db_changes(s->db) == 0 ? STORE_STALE : fail(s, "draft");
    } else {
        fail(s, "draft");
    }
out:
    done(st);
    return rc;
}

int store_draft_delete(struct store *s, int64_t user_id, const char *slug)
{
    struct db_stmt *st = prep(s, Q_DRAFT_DELETE);
    int rc = -1;
    if (st && bind(s, st, "it", user_id, slug) == 0 && exec_step(s, st) == 0)
        rc = (int)db_changes(s->db) ? 0 : STORE_NOT_FOUND;
    done(st);
    return rc;
}

void store_draft_free(struct store_draft *d)
{
    free(d->source);
    d->source = NULL;
}

/* ---- integrity (issue 11) ---- */

int store_problem_sources(struct store *s, const char *slug,
                          int (*fn)(void *arg, const struct store_source_row *row), void *arg)
{
    struct db_stmt *st = prep(s, Q_PROBLEM_SOURCES);
    int rc = -1, r;
    if (!st || bind(s, st, "t", slug) < 0)
        goto out;
    while ((r = db_step(st)) == DB_ROW) {
        size_t len;
        const char *source = col_bytes(st, 4, &len);
        struct store_source_row row = {.user = col_text(st, 0),
                                       .submission_id = db_column_int64(st, 1),
                                       .verdict = col_text(st, 2),
                                       .created_at = db_column_int64(st, 3),
                                       .source = source,
                                       .len = len};
        if (fn(arg, &row) < 0) {
            rc = stopped(s, "sources");
            goto out;
        }
    }
    rc = r == DB_DONE ? 0 : fail(s, "sources");
out:
    done(st);
    return rc;
}
