// The instructor's LMS card on the Grades page (docs/lti.md, "Grades
// back"): the links an LMS launched, which are graded and which offer a
// roster, and the outbox of scores with a failed one's reason and its
// Retry. The LTI rows are written into the server's SQLite database
// (WORK/data) as launches and a refused delivery would leave them; the
// LMS's URLs point at a closed port, so the retried score waits again with
// the connection's error. Screenshot: lti-grades.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

function seed(work) {
  execFileSync('/usr/bin/python3', ['-c', `
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
t = int(time.time() * 1000)
lms = "http://127.0.0.1:9"
con.execute("INSERT INTO users(username, pwhash, role, created_at) VALUES ('lti-card', '!', 'student', ?)", (t,))
uid = con.execute("SELECT id FROM users WHERE username = 'lti-card'").fetchone()[0]
con.execute("INSERT INTO lti_platforms(issuer, client_id, auth_url, token_url, jwks_url, created_at) VALUES (?, 'c', ?, ?, ?, ?)", (lms, lms + "/auth", lms + "/token", lms + "/jwks", t))
pid = con.execute("SELECT id FROM lti_platforms WHERE issuer = ?", (lms,)).fetchone()[0]
con.execute("INSERT INTO lti_deployments(platform_id, deployment_id) VALUES (?, 'd')", (pid,))
con.execute("INSERT INTO lti_users(issuer, sub, user_id, created_at) VALUES (?, 'sub-card', ?, ?)", (lms, uid, t))
scope = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
for rl, kind, slug, item in [("rl-week", "assignment", "week-1", lms + "/li/1"), ("rl-practice", "problem", "softmax-rows", None)]:
    con.execute("INSERT INTO lti_links(platform_id, deployment_id, context_id, resource_link_id, kind, slug, ags_lineitems_url, ags_lineitem_url, ags_scopes, nrps_url, updated_at) VALUES (?, 'd', 'course-9', ?, ?, ?, ?, ?, ?, ?, ?)", (pid, rl, kind, slug, lms + "/li", item, scope, lms + "/nrps" if kind == "assignment" else None, t))
link = con.execute("SELECT id FROM lti_links WHERE resource_link_id = 'rl-week'").fetchone()[0]
# what the tool would send this student (nothing counted: 0 of 100 a problem),
# so that the outbox queues nothing newer than the failed row
top = con.execute("SELECT 100 * count(*) FROM assignment_problems ap JOIN assignments a ON a.id = ap.assignment_id WHERE a.slug = 'week-1'").fetchone()[0]
con.execute("INSERT INTO lti_outbox(link_id, user_id, seq, score_given, score_maximum, activity_progress, grading_progress, score_at, state, attempts, next_try_at, last_error, created_at) VALUES (?, ?, 1, 0, ?, 'Completed', 'FullyGraded', ?, 'failed', 1, ?, 'score: HTTP 400', ?)", (link, uid, top, t, t, t))
con.close()`, join(work, 'data', 'attnjudge.db')]);
}

export async function ltiGradesScenarios({ tp, open, scenario, shot, assert, eq, WORK }) {
  await scenario('lti: the Grades page shows the LMS links, the outbox and a failed score\'s reason; Retry', tp, async () => {
    seed(WORK);
    await open(tp, '/instructor/grades');
    await tp.waitForSelector('#lti-links-table tr[data-link]');
    const rows = await tp.$$eval('#lti-links-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
    eq(JSON.stringify(rows.map((r) => [r[1], r[2], r[3]])), JSON.stringify([
      ['rl-week', 'assignment week-1', 'sent to the LMS'], ['rl-practice', 'problem softmax-rows', 'practice']]), 'the links');
    assert(rows[0][4] === 'Sync roster' && rows[1][4] === 'no roster service', `roster buttons: ${JSON.stringify(rows)}`);
    const failed = tp.locator('#lti-outbox-table tr[data-state="failed"]');
    await failed.waitFor();
    assert((await failed.textContent()).includes('score: HTTP 400'), 'the reason is shown');
    assert((await tp.textContent('#lti-outbox-counts')).includes('1 failed'), await tp.textContent('#lti-outbox-counts'));
    await shot(tp, 'lti-grades');
    await failed.locator('button', { hasText: 'Retry' }).click();
    await tp.waitForFunction(() => /will be tried again now/.test(document.querySelector('#lti-status')?.textContent || ''));
    // the LMS is unreachable: the score waits again, with the connection's error
    await tp.waitForFunction(async () => {
      document.querySelector('#lti-refresh').click();
      await new Promise((r) => setTimeout(r, 500));
      const tr = document.querySelector('#lti-outbox-table tr[data-state="pending"]');
      return tr && /score: /.test(tr.textContent);
    }, null, { timeout: 30000, polling: 1000 });
  });
}
