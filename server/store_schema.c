/*
 * store_schema — the database's schema as numbered migrations, written
 * for SQLite and for PostgreSQL side by side, and the runner that brings
 * a database up to the latest one.
 *
 * Migration i (0-based) takes the schema from version i to i + 1, one
 * transaction each, with the reached version in table schema_version;
 * one schema_version serves both backends. A new migration is written in
 * both arrays. The runner's own statements (schema_version, SQLite's
 * foreign-key check) are schema plumbing, run before any table of
 * store_sql.def may exist, so they stay here.
 */
#include "server/store_impl.h"

#include <stdbool.h>

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
    /* 13: benchmarks round-robin across users (server/store_queue.c):
     * when each user's benchmark last started, as queue_turns is for
     * verdicts. */
    "CREATE TABLE bench_turns ("
    "  user_id INTEGER PRIMARY KEY REFERENCES users(id),"
    "  served_at INTEGER NOT NULL);",
    /* 14: the benchmark pool's key (judge/poolkey.h): sources that differ
     * only in comments, layout and the names of locals share one
     * measurement. NULL until the submission is benchmarked; rows from
     * before pool by their source's bytes, as they did. */
    "ALTER TABLE submissions ADD COLUMN pool_key TEXT;"
    "CREATE INDEX submissions_pool ON submissions(problem_id, problem_version, pool_key)"
    "  WHERE pool_key IS NOT NULL;",
    /* 15: LTI 1.3 (docs/lti.md). lti_platforms: a registered LMS (issuer
     * and client id; its login, token and JWKS URLs; the origins allowed to
     * frame the pages). lti_deployments: its deployment ids, the only ones a
     * launch may name. lti_users: who an (issuer, sub) is here.
     * lti_nonces: one row per login, the state (its hash) the browser must
     * bring back and the nonce the id_token must carry, used once.
     * lti_contexts: the LMS courses this server serves, each owned by one
     * platform and deployment. lti_links: what each resource link opens,
     * and the grade and roster services its last launch named. */
    "CREATE TABLE lti_platforms ("
    "  id INTEGER PRIMARY KEY,"
    "  issuer TEXT NOT NULL,"
    "  client_id TEXT NOT NULL,"
    "  auth_url TEXT NOT NULL,"
    "  token_url TEXT NOT NULL,"
    "  jwks_url TEXT NOT NULL,"
    "  frame_origins TEXT NOT NULL DEFAULT '',"
    "  created_at INTEGER NOT NULL,"
    "  UNIQUE (issuer, client_id));"
    "CREATE TABLE lti_deployments ("
    "  platform_id INTEGER NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,"
    "  deployment_id TEXT NOT NULL,"
    "  PRIMARY KEY (platform_id, deployment_id));"
    "CREATE TABLE lti_users ("
    "  issuer TEXT NOT NULL,"
    "  sub TEXT NOT NULL,"
    "  user_id INTEGER NOT NULL UNIQUE REFERENCES users(id),"
    "  created_at INTEGER NOT NULL,"
    "  PRIMARY KEY (issuer, sub));"
    "CREATE TABLE lti_nonces ("
    "  platform_id INTEGER NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,"
    "  nonce TEXT NOT NULL,"
    "  state_hash TEXT NOT NULL,"
    "  expires_at INTEGER NOT NULL,"
    "  used_at INTEGER,"
    "  PRIMARY KEY (platform_id, nonce));"
    "CREATE INDEX lti_nonces_expiry ON lti_nonces(expires_at);"
    "CREATE TABLE lti_contexts ("
    "  platform_id INTEGER NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,"
    "  deployment_id TEXT NOT NULL,"
    "  context_id TEXT NOT NULL,"
    "  title TEXT NOT NULL DEFAULT '',"
    "  bound_by INTEGER REFERENCES users(id),"
    "  bound_at INTEGER NOT NULL,"
    "  PRIMARY KEY (platform_id, context_id),"
    "  FOREIGN KEY (platform_id, deployment_id)"
    "    REFERENCES lti_deployments(platform_id, deployment_id) ON DELETE CASCADE);"
    "CREATE TABLE lti_links ("
    "  id INTEGER PRIMARY KEY,"
    "  platform_id INTEGER NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,"
    "  deployment_id TEXT NOT NULL,"
    "  context_id TEXT NOT NULL,"
    "  resource_link_id TEXT NOT NULL,"
    "  kind TEXT NOT NULL CHECK (kind IN ('problem', 'assignment')),"
    "  slug TEXT NOT NULL,"
    "  ags_lineitems_url TEXT,"
    "  ags_lineitem_url TEXT,"
    "  ags_scopes TEXT,"
    "  nrps_url TEXT,"
    "  updated_at INTEGER NOT NULL,"
    "  UNIQUE (platform_id, deployment_id, resource_link_id));"
    "CREATE INDEX lti_links_target ON lti_links(kind, slug);",
    /* 16: scores owed to LMSs (server/lti_outbox_store.h, docs/lti.md):
     * the line item found or created per graded resource link, and the
     * outbox, one row per grade change of a (link, user) with its
     * sequence number, what the LMS is sent, and the delivery's state;
     * holder and lease_until claim it as judge hosts claim judgements. */
    "CREATE TABLE lti_lineitems ("
    "  link_id INTEGER PRIMARY KEY REFERENCES lti_links(id) ON DELETE CASCADE,"
    "  url TEXT NOT NULL,"
    "  score_maximum REAL NOT NULL,"
    "  created_at INTEGER NOT NULL);"
    "CREATE TABLE lti_outbox ("
    "  id INTEGER PRIMARY KEY,"
    "  link_id INTEGER NOT NULL REFERENCES lti_links(id) ON DELETE CASCADE,"
    "  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
    "  seq INTEGER NOT NULL,"
    "  score_given REAL NOT NULL,"
    "  score_maximum REAL NOT NULL,"
    "  activity_progress TEXT NOT NULL,"
    "  grading_progress TEXT NOT NULL,"
    "  score_at INTEGER NOT NULL,"
    "  state TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'delivered', 'failed',"
    "    'superseded')),"
    "  attempts INTEGER NOT NULL DEFAULT 0,"
    "  next_try_at INTEGER NOT NULL,"
    "  last_error TEXT,"
    "  holder TEXT,"
    "  lease_until INTEGER,"
    "  delivered_at INTEGER,"
    "  created_at INTEGER NOT NULL,"
    "  UNIQUE (link_id, user_id, seq));"
    "CREATE INDEX lti_outbox_due ON lti_outbox(state, next_try_at);",
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
    /* 13 */
    "CREATE TABLE bench_turns ("
    "  user_id BIGINT PRIMARY KEY REFERENCES users(id),"
    "  served_at BIGINT NOT NULL);",
    /* 14 */
    "ALTER TABLE submissions ADD COLUMN pool_key TEXT;"
    "CREATE INDEX submissions_pool ON submissions(problem_id, problem_version, pool_key)"
    "  WHERE pool_key IS NOT NULL;",
    /* 15 */
    "CREATE TABLE lti_platforms ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  issuer TEXT NOT NULL,"
    "  client_id TEXT NOT NULL,"
    "  auth_url TEXT NOT NULL,"
    "  token_url TEXT NOT NULL,"
    "  jwks_url TEXT NOT NULL,"
    "  frame_origins TEXT NOT NULL DEFAULT '',"
    "  created_at BIGINT NOT NULL,"
    "  UNIQUE (issuer, client_id));"
    "CREATE TABLE lti_deployments ("
    "  platform_id BIGINT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,"
    "  deployment_id TEXT NOT NULL,"
    "  PRIMARY KEY (platform_id, deployment_id));"
    "CREATE TABLE lti_users ("
    "  issuer TEXT NOT NULL,"
    "  sub TEXT NOT NULL,"
    "  user_id BIGINT NOT NULL UNIQUE REFERENCES users(id),"
    "  created_at BIGINT NOT NULL,"
    "  PRIMARY KEY (issuer, sub));"
    "CREATE TABLE lti_nonces ("
    "  platform_id BIGINT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,"
    "  nonce TEXT NOT NULL,"
    "  state_hash TEXT NOT NULL,"
    "  expires_at BIGINT NOT NULL,"
    "  used_at BIGINT,"
    "  PRIMARY KEY (platform_id, nonce));"
    "CREATE INDEX lti_nonces_expiry ON lti_nonces(expires_at);"
    "CREATE TABLE lti_contexts ("
    "  platform_id BIGINT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,"
    "  deployment_id TEXT NOT NULL,"
    "  context_id TEXT NOT NULL,"
    "  title TEXT NOT NULL DEFAULT '',"
    "  bound_by BIGINT REFERENCES users(id),"
    "  bound_at BIGINT NOT NULL,"
    "  PRIMARY KEY (platform_id, context_id),"
    "  FOREIGN KEY (platform_id, deployment_id)"
    "    REFERENCES lti_deployments(platform_id, deployment_id) ON DELETE CASCADE);"
    "CREATE TABLE lti_links ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  platform_id BIGINT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,"
    "  deployment_id TEXT NOT NULL,"
    "  context_id TEXT NOT NULL,"
    "  resource_link_id TEXT NOT NULL,"
    "  kind TEXT NOT NULL CHECK (kind IN ('problem', 'assignment')),"
    "  slug TEXT NOT NULL,"
    "  ags_lineitems_url TEXT,"
    "  ags_lineitem_url TEXT,"
    "  ags_scopes TEXT,"
    "  nrps_url TEXT,"
    "  updated_at BIGINT NOT NULL,"
    "  UNIQUE (platform_id, deployment_id, resource_link_id));"
    "CREATE INDEX lti_links_target ON lti_links(kind, slug);",
    /* 16 */
    "CREATE TABLE lti_lineitems ("
    "  link_id BIGINT PRIMARY KEY REFERENCES lti_links(id) ON DELETE CASCADE,"
    "  url TEXT NOT NULL,"
    "  score_maximum DOUBLE PRECISION NOT NULL,"
    "  created_at BIGINT NOT NULL);"
    "CREATE TABLE lti_outbox ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  link_id BIGINT NOT NULL REFERENCES lti_links(id) ON DELETE CASCADE,"
    "  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
    "  seq BIGINT NOT NULL,"
    "  score_given DOUBLE PRECISION NOT NULL,"
    "  score_maximum DOUBLE PRECISION NOT NULL,"
    "  activity_progress TEXT NOT NULL,"
    "  grading_progress TEXT NOT NULL,"
    "  score_at BIGINT NOT NULL,"
    "  state TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'delivered', 'failed',"
    "    'superseded')),"
    "  attempts BIGINT NOT NULL DEFAULT 0,"
    "  next_try_at BIGINT NOT NULL,"
    "  last_error TEXT,"
    "  holder TEXT,"
    "  lease_until BIGINT,"
    "  delivered_at BIGINT,"
    "  created_at BIGINT NOT NULL,"
    "  UNIQUE (link_id, user_id, seq));"
    "CREATE INDEX lti_outbox_due ON lti_outbox(state, next_try_at);",
};

_Static_assert(sizeof pg_migrations == sizeof migrations,
               "each migration is written for both backends");

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
        return store_fail(s, "foreign_key_check");
    int r = db_step(st);
    if (r == DB_DONE)
        rc = 0;
    else if (r == DB_ROW)
        snprintf(s->err, sizeof s->err, "migration leaves a dangling reference in table %s",
                 db_column_text(st, 0));
    else
        store_fail(s, "foreign_key_check");
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
            store_fail(s, "schema_version");
            goto fail;
        }
        int r = db_step(st);
        if (r == DB_ROW)
            version = (int)db_column_int64(st, 0);
        else if (r < 0) {
            store_fail(s, "schema_version");
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
