"""Grades back to the LMS through a real server and the test LMS's services
(tests/lti/lms_services.py), on SQLite, or on PostgreSQL when
ATTNJUDGE_TEST_PG_URL is set (tests/pg):

- an assignment link and a problem link of a registered platform, three
  students known to it (alice, bob, carol); alice and carol submit before
  the due date, bob after it (late policy: 25 % per started day);
- the LMS's gradebook receives exactly the tool's grades (the assignment
  grades route's totals, late penalty included; the problem's best
  scores), the line items created with resourceId = the slug, one token
  asked per scope (cached), the client assertion verified against the
  tool's /lti/jwks;
- an outage (503, then 429 with Retry-After) while a rejudge changes
  alice's and bob's verdicts, and a restart of the server in the middle of
  it: the outbox shows the deliveries waiting with the reason, nothing is
  delivered twice or out of order, nothing is lost: once the LMS is back
  its gradebook holds the new grades;
- a changed due date moves the grades, and the LMS receives them;
- a permanent refusal (a student the LMS does not know) is `failed` with
  its reason; an instructor's retry of it; instructors only;
- the roster synced from the LMS (NRPS, paged): learners created or
  updated with their names and e-mails, instructors and inactive members
  left out.

The gradebook before and after the rejudge is printed (docs/lti.md).

    /usr/bin/python3 tests/lti/grades_outbox.py BUILD_DIR/attnjudge
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# this directory after the standard library (Python put it first):
# platform.py must not shadow its module
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE] + [HERE]
sys.path.insert(0, os.path.join(HERE, "..", "server"))
from lms_services import LmsServices, serve  # noqa: E402
from serverlib import expect, run_scenario, source, wait_until  # noqa: E402
from rejudge import GOOD, SLUG, V2_TESTS, breaking, problem_json, problems_dir  # noqa: E402
from assignments import iso  # noqa: E402

ISSUER = "https://lms.example.edu"
CLIENT = "attnjudge-client"
DEPLOYMENT = "dep-1"
CONTEXT = "course-101"
DAY_MS = 24 * 3600 * 1000


def now_ms():
    return int(time.time() * 1000)


def grades_of(prof, assignment):
    """{username: total} of the tool's assignment grades route."""
    st, body, _ = prof.call("GET", "/api/assignments/%s/grades" % assignment)
    return {s["username"]: round(s["total"], 6) for s in body["students"]} if st == 200 else {}


def verdict(client, sid):
    def done():
        st, body, _ = client.call("GET", "/api/submissions/%d" % sid)
        return body if st == 200 and body["status"] == "done" else None
    return wait_until(done, 180, 0.2) or {}


def write(srv, sql, args=()):
    """An INSERT on the server's database, committed (srv.db reads)."""
    if srv.conf.get("database", "").startswith("postgres"):
        return srv.db(sql, args)
    import sqlite3
    con = sqlite3.connect(os.path.join(srv.data, "attnjudge.db"), timeout=30)
    try:
        with con:
            con.execute(sql, args)
    finally:
        con.close()


def register(srv, lms):
    """The platform, its deployment and two graded resource links, as a
    launch records them (docs/lti.md)."""
    t = now_ms()
    write(srv, "INSERT INTO lti_platforms(issuer, client_id, auth_url, token_url, jwks_url,"
           " created_at) VALUES (?, ?, ?, ?, ?, ?)",
           (ISSUER, CLIENT, lms.base + "/auth", lms.token_url, lms.base + "/jwks", t))
    pid = srv.db("SELECT id FROM lti_platforms WHERE issuer = ?", (ISSUER,))[0][0]
    write(srv, "INSERT INTO lti_deployments(platform_id, deployment_id) VALUES (?, ?)",
           (pid, DEPLOYMENT))
    links = {}
    # the assignment's link names the line-items service only (the tool
    # finds or creates its line item); the problem's names a line item the
    # LMS made; a third link, practice (no line item), is never graded
    own = lms.add_lineitem(CONTEXT, "Rejudge fixture", 100, SLUG, "rl-rj")
    for rl, kind, slug, item in [("rl-hw", "assignment", "hw", None),
                                 ("rl-rj", "problem", SLUG, own),
                                 ("rl-practice", "problem", SLUG, None)]:
        write(srv, "INSERT INTO lti_links(platform_id, deployment_id, context_id, resource_link_id,"
               " kind, slug, ags_lineitems_url, ags_lineitem_url, ags_scopes, nrps_url,"
               " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (pid, DEPLOYMENT, CONTEXT, rl, kind, slug, lms.lineitems_url(CONTEXT), item,
                "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem "
                "https://purl.imsglobal.org/spec/lti-ags/scope/score",
                lms.memberships_url(CONTEXT), t))
        links[slug] = srv.db("SELECT id FROM lti_links WHERE resource_link_id = ?", (rl,))[0][0]
    return pid, links


def link_user(srv, name, sub):
    uid = srv.db("SELECT id FROM users WHERE username = ?", (name,))[0][0]
    write(srv, "INSERT INTO lti_users(issuer, sub, user_id, created_at) VALUES (?, ?, ?, ?)",
           (ISSUER, sub, uid, now_ms()))


def outbox(prof, state=None):
    st, body, _ = prof.call("GET", "/api/lti/outbox" + ("?state=" + state if state else ""))
    return body if st == 200 else {"counts": {}, "deliveries": []}


def settled(prof):
    """Nothing waiting or being sent."""
    c = outbox(prof)["counts"]
    return c.get("pending", 1) == 0 and c.get("sending", 1) == 0


def expected_book(prof, subs_best):
    """What the LMS must show: {resourceId: {sub: score}}."""
    return {"hw": {SUB[u]: v for u, v in grades_of(prof, "hw").items() if u in SUB},
            SLUG: {SUB[u]: v for u, v in subs_best.items()}}


SUB = {"alice": "lms-user-a1", "bob": "lms-user-b2", "carol": "lms-user-c3"}


def rounded(book):
    return {k: {u: round(v, 6) for u, v in m.items()} for k, m in book.items()}


def new_version_rejudged(rep, prof):
    """Version 2 of the rejudge fixture (tests/server/rejudge.py), and the
    problem's rejudge: alice's and bob's verdicts change."""
    pkg = {"problem_json": json.dumps(problem_json(V2_TESTS)),
           "statement_md": source("problems/softmax-stable/statement.md"),
           "starter_c": source("problems/softmax-stable/starter.c"),
           "reference_c": source("reference/softmax-stable.c")}
    st, body, _ = prof.call("PUT", "/api/problems/" + SLUG, pkg)
    rep.check("version 2 uploaded", st == 200, json.dumps(body)[:200])
    st, body, _ = prof.call("POST", "/api/problems/%s/rejudge" % SLUG, {})
    rep.check("rejudge queued", st == 202, json.dumps(body))


def run(srv, rep, lms):
    prof = srv.client()
    prof.sign_in("prof", "prof-password")
    pid, links = register(srv, lms)
    users = {}
    for name in SUB:
        c = srv.client()
        c.sign_up(name)
        users[name] = c
        link_user(srv, name, SUB[name])

    # The assignment: due in a few seconds, late work up to two days at 25 % a day.
    t = now_ms()
    due = t + 6000
    st, body, _ = prof.call("POST", "/api/assignments", {
        "slug": "hw", "title": "Homework", "problems": [SLUG], "opens_at": iso(t - DAY_MS),
        "due_at": iso(due), "late_policy": {"penalty_per_day": 0.25, "cutoff": iso(t + 2 * DAY_MS)}})
    rep.check("assignment created", st == 201, json.dumps(body))
    sids = {}
    for name, src in [("alice", breaking("cols > 100")), ("carol", GOOD)]:
        st, body, _ = users[name].submit(SLUG, src)
        sids[name] = body["id"]
    wait_until(lambda: now_ms() > due + 200, 30, 0.1)
    st, body, _ = users["bob"].submit(SLUG, breaking("cols == 13"))
    sids["bob"] = body["id"]
    v1 = {n: verdict(users[n], s) for n, s in sids.items()}
    rep.check("version 1: alice accepted, bob wrong_answer, carol accepted",
              [v1[n].get("verdict") for n in ("alice", "bob", "carol")]
              == ["accepted", "wrong_answer", "accepted"], json.dumps(v1)[:300])

    # Before the rejudge: the gradebook equals the tool's grades.
    best = {n: v1[n]["score"] for n in sids}
    want = rounded(expected_book(prof, best))
    ok = wait_until(lambda: settled(prof) and rounded(lms.gradebook()) == want, 60, 0.2)
    before = rounded(lms.gradebook())
    print("gradebook before the rejudge: %s" % json.dumps(before, sort_keys=True))
    rep.check("the LMS's gradebook is the tool's grades", ok, "%s vs %s" % (before, want))
    rep.check("late penalty: bob's assignment total is 75 %% of his score (%s)" % best["bob"],
              abs(before.get("hw", {}).get(SUB["bob"], -1) - 0.75 * best["bob"]) < 1e-6)
    rep.check("on time: alice 100 and carol 100 on the assignment",
              before.get("hw", {}).get(SUB["alice"]) == 100
              and before.get("hw", {}).get(SUB["carol"]) == 100)
    items = sorted((li["resourceId"], li["resourceLinkId"], li["scoreMaximum"])
                   for li in lms.lineitems.values())
    rep.check("the assignment's line item created with resourceId = slug; the LMS's own used; "
              "none for practice", items == [("hw", "rl-hw", 100), (SLUG, "rl-rj", 100)],
              json.dumps(items))
    rep.check("tokens cached: one per scope (lineitem, score), %d asked" % lms.token_requests,
              lms.token_requests == 2 and not lms.token_refusals, json.dumps(lms.token_refusals))
    rep.check("the practice link sent nothing", srv.db(
        "SELECT count(*) FROM lti_outbox o JOIN lti_links l ON l.id = o.link_id"
        " WHERE l.resource_link_id = 'rl-practice'")[0][0] == 0)
    rep.check("every score has the AGS fields", all(
        s["activityProgress"] == "Completed" and s["gradingProgress"] == "FullyGraded"
        and s["scoreMaximum"] == 100 and s["timestamp"].endswith("Z") for s in lms.scores))

    # The outage, a rejudge during it, and a restart in the middle.
    lms.outage = 503
    received = len(lms.scores)
    new_version_rejudged(rep, prof)
    v2 = {n: wait_until(lambda n=n: (lambda b: b if b.get("problem_version") == 2 else None)(
        verdict(users[n], sids[n])), 180, 0.3) or {} for n in sids}
    rep.check("version 2: alice wrong_answer, bob accepted, carol accepted",
              [v2[n].get("verdict") for n in ("alice", "bob", "carol")]
              == ["wrong_answer", "accepted", "accepted"], json.dumps(v2)[:300])
    waiting = wait_until(lambda: [d for d in outbox(prof, "pending")["deliveries"]
                                  if d["attempts"] >= 1 and "503" in (d["last_error"] or "")],
                         60, 0.3)
    rep.check("during the outage: deliveries wait, with the LMS's 503 as the reason",
              bool(waiting), json.dumps(outbox(prof))[:400])
    srv.stop()
    lms.outage = 429
    srv.start()
    prof = srv.client()
    prof.sign_in("prof", "prof-password")
    wait_until(lambda: lms.outage_hits > 0 and any(
        "429" in (d["last_error"] or "") for d in outbox(prof, "pending")["deliveries"]), 60, 0.3)
    rep.check("after the restart: still waiting (now 429), none failed",
              outbox(prof)["counts"].get("failed") == 0
              and outbox(prof)["counts"].get("pending", 0) > 0, json.dumps(outbox(prof))[:400])
    rep.check("nothing reached the LMS during the outage", len(lms.scores) == received)
    lms.outage = None

    best2 = {n: v2[n]["score"] for n in sids}
    want2 = rounded(expected_book(prof, best2))
    ok = wait_until(lambda: settled(prof) and rounded(lms.gradebook()) == want2, 90, 0.3)
    after = rounded(lms.gradebook())
    print("gradebook after the rejudge: %s" % json.dumps(after, sort_keys=True))
    rep.check("after the outage: the gradebook holds the rejudged grades", ok,
              "%s vs %s" % (after, want2))
    rep.check("bob: accepted and late, 75 on the assignment", after.get("hw", {}).get(SUB["bob"]) == 75)
    rep.check("alice: her new (lower) score on both", after.get(SLUG, {}).get(SUB["alice"])
              == best2["alice"] < 100)
    rep.check("nothing delivered twice", lms.duplicates() == [], json.dumps(lms.duplicates()))
    rep.check("nothing out of order", lms.out_of_order == [], json.dumps(lms.out_of_order))

    # A changed due date moves the grades: all on time now.
    t = now_ms()
    st, body, _ = prof.call("PUT", "/api/assignments/hw", {
        "slug": "hw", "title": "Homework", "problems": [SLUG], "opens_at": iso(t - DAY_MS),
        "due_at": iso(t + DAY_MS), "late_policy": "none"})
    rep.check("due date moved", st == 200, json.dumps(body)[:200])
    ok = wait_until(lambda: settled(prof) and lms.gradebook().get("hw", {}).get(SUB["bob"]) == 100,
                    60, 0.2)
    rep.check("the LMS receives bob's grade without the penalty: 100", ok,
              json.dumps(lms.gradebook()))

    # A permanent refusal: failed, with the reason, and an instructor's retry.
    dave = srv.client()
    dave.sign_up("dave")
    link_user(srv, "dave", "not-in-this-course")
    lms.unknown_users = {"not-in-this-course"}
    st, body, _ = dave.submit(SLUG, GOOD)
    verdict(dave, body["id"])
    failed = wait_until(lambda: outbox(prof, "failed")["deliveries"], 60, 0.2)
    rep.check("a score the LMS refuses (400) is failed with its reason",
              bool(failed) and all(d["user"] == "dave" and "HTTP 400" in d["last_error"]
                                   for d in failed), json.dumps(failed)[:400])
    if failed:
        lms.unknown_users = set()
        for d in failed:
            st, body, _ = prof.call("POST", "/api/lti/outbox/%d/retry" % d["id"], {})
            rep.check("retry of %s's %s score: 200 pending" % (d["user"], d["slug"]),
                      st == 200 and body["state"] == "pending", json.dumps(body))
        ok = wait_until(lambda: lms.gradebook().get(SLUG, {}).get("not-in-this-course") == 100,
                        30, 0.2)
        rep.check("... and delivered", ok)
        expect(rep, "retry of a delivered one", prof.call(
            "POST", "/api/lti/outbox/%d/retry" % failed[0]["id"], {}), 409, "not_retryable")
    carol = srv.client()  # the server restarted: a new connection
    carol.sign_in("carol", "carol-password")
    expect(rep, "outbox: students may not read it", carol.call("GET", "/api/lti/outbox"),
           403, "forbidden")
    expect(rep, "outbox: a bad state", prof.call("GET", "/api/lti/outbox?state=lost"), 400,
           "invalid_request")
    st, body, _ = prof.call("GET", "/api/lti/links")
    rep.check("GET /api/lti/links: the three links, which are graded, which have a roster",
              st == 200 and [(l["resource_link"], l["kind"], l["graded"], l["roster"])
                             for l in body["links"]]
              == [("rl-hw", "assignment", True, True), ("rl-rj", "problem", True, True),
                  ("rl-practice", "problem", False, True)], json.dumps(body))

    # The roster from the LMS (NRPS), two members a page.
    lms.page = 2
    learner = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
    lms.members[CONTEXT] = [
        {"status": "Active", "user_id": SUB["alice"], "name": "Alice Archer",
         "email": "alice@uni.example", "roles": [learner]},
        {"status": "Active", "user_id": "lms-user-e5", "name": "Erin Ng",
         "email": "Erin.Ng@uni.example", "roles": [learner]},
        {"status": "Active", "user_id": "lms-prof", "name": "Prof",
         "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]},
        {"status": "Inactive", "user_id": "lms-user-x9", "name": "Gone", "roles": [learner]},
        {"status": "Active", "user_id": "lms-user-e6", "name": "Erin Other",
         "email": "erin.ng@elsewhere.example", "roles": ["Learner"]}]
    st, body, _ = prof.call("POST", "/api/lti/links/%d/roster" % links["hw"], {})
    rep.check("roster sync: 5 members over 3 pages, 2 created, alice updated, 1 instructor "
              "and 1 inactive skipped", st == 200 and body["members"] == 5
              and body["created"] == ["erin.ng", "erin.ng2"] and body["updated"] == ["alice"]
              and body["skipped"] == {"inactive": 1, "not_learners": 1}, json.dumps(body))
    rows = srv.db("SELECT u.username, u.role, u.display_name, u.student_id FROM users u"
                  " JOIN lti_users l ON l.user_id = u.id WHERE l.sub IN (?, ?) ORDER BY u.id",
                  (SUB["alice"], "lms-user-e5"))
    rep.check("roster sync: names and e-mails kept, a new student account",
              [tuple(r) for r in rows] == [("alice", "student", "Alice Archer", "alice@uni.example"),
                                           ("erin.ng", "student", "Erin Ng", "Erin.Ng@uni.example")],
              json.dumps(rows))
    st, body, _ = prof.call("POST", "/api/lti/links/%d/roster" % links["hw"], {})
    rep.check("roster sync again: nothing created", st == 200 and body["created"] == []
              and len(body["updated"]) == 3, json.dumps(body))
    expect(rep, "roster of an unknown link", prof.call("POST", "/api/lti/links/999/roster", {}),
           404, "not_found")
    expect(rep, "roster: students may not", carol.call(
        "POST", "/api/lti/links/%d/roster" % links["hw"], {}), 403, "forbidden")
    lms.outage = 503
    expect(rep, "roster during an outage", prof.call(
        "POST", "/api/lti/links/%d/roster" % links["hw"], {}), 502, "lms_error")
    lms.outage = None
    log = srv.log()
    rep.check("no token or assertion in the log", "Bearer" not in log and "eyJ" not in log
              and not any(tok in log for tok in lms.tokens))


def files_jwks(srv):
    from jwcrypto import jwk
    d = os.path.join(srv.data, "lti")
    ks = jwk.JWKSet()
    for f in os.listdir(d):
        if f.endswith(".jwk"):
            ks.add(jwk.JWK.from_json(open(os.path.join(d, f)).read()))
    return ks.export(private_keys=False)


def main():
    lms, httpd = serve(lambda base: LmsServices(base, None, CLIENT))

    def scenario(srv, rep):
        lms.tool_jwks_url = lambda: files_jwks(srv)
        return run(srv, rep, lms)

    # grades recomputed every 200 ms, retries at most 2 s apart: the
    # scenario's waits stay short
    conf = {"lti_sync_ms": 200, "lti_backoff_max_s": 2}
    try:
        return run_scenario(sys.argv[1], "lti-grades", scenario, problems=problems_dir,
                            workers=1, conf=conf)
    finally:
        httpd.shutdown()
        httpd.server_close()


if __name__ == "__main__":
    sys.exit(main())
