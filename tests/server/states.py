"""Problem states (issue 11, item 1) through a real server:

- the course's problems directory is published; an upload arrives as a
  draft unless it says otherwise, and a replacement keeps its state;
- a draft, or a problem whose publish_at is still to come, is 404 to
  students and anonymous visitors on every route that names it (list,
  problem, samples, leaderboard, submit, run, hint, walkthrough) and fully
  usable by instructors; a past publish_at shows it;
- an archived problem stays readable (problem, leaderboard, its
  submissions) and takes no submission or run (409 problem_archived);
- PATCH /api/problems/{slug}: every bad input and every wrong caller;
- DELETE /api/problems/{slug}: 204 without submissions (and the slug can
  start again from version 1), 409 has_submissions with them.

    python3 tests/server/states.py BUILD_DIR/attnjudge
"""
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, expect, run_scenario, source, wait_until  # noqa: E402

SLUG = "softmax-stable"
GOOD = "tests/submissions/%s/accepted/plain_float.c" % SLUG


def package(slug, **extra):
    """softmax-stable as an upload under slug."""
    pj = json.load(open(os.path.join(ROOT, "problems", SLUG, "problem.json")))
    pj["slug"] = slug
    pj["title"] = "Copy " + slug
    pkg = {
        "problem_json": json.dumps(pj),
        "statement_md": source("problems/%s/statement.md" % SLUG),
        "starter_c": source("problems/%s/starter.c" % SLUG),
        "reference_c": source("reference/%s.c" % SLUG),
        "mistakes": {m["id"]: source("problems/%s/mistakes/%s.c" % (SLUG, m["id"]))
                     for m in pj.get("mistakes", [])},
    }
    pkg.update(extra)
    return pkg


def problems_dir(tmp):
    root = os.path.join(tmp, "problems")
    shutil.copytree(os.path.join(ROOT, "problems", SLUG), os.path.join(root, SLUG))
    return root


def iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + ".000Z"


def listed(client, slug):
    st, body, _ = client.call("GET", "/api/problems")
    return st == 200 and any(p["slug"] == slug for p in body["problems"])


def hidden_everywhere(rep, what, slug, clients):
    """Every route that names slug answers 404 to each of clients."""
    for who, c in clients:
        tag = "%s, %s" % (what, who)
        rep.check("%s: not in the list" % tag, not listed(c, slug))
        expect(rep, tag + ": GET problem", c.call("GET", "/api/problems/" + slug), 404,
               "not_found")
        expect(rep, tag + ": samples", c.call("GET", "/api/problems/%s/samples" % slug), 404,
               "not_found")
        expect(rep, tag + ": leaderboard", c.call("GET", "/api/leaderboard/" + slug), 404,
               "not_found")
        if c.token:
            expect(rep, tag + ": submit", c.submit(slug, source(GOOD)), 404, "not_found")
            expect(rep, tag + ": run", c.call("POST", "/api/runs",
                                              {"problem": slug, "source": source(GOOD)}),
                   404, "not_found")
            expect(rep, tag + ": hint", c.call("POST", "/api/problems/%s/hints/1" % slug, {}),
                   404, "not_found")
            expect(rep, tag + ": walkthrough",
                   c.call("GET", "/api/problems/%s/walkthrough" % slug), 404, "not_found")


def verdict_of(client, sid):
    def done():
        st, body, _ = client.call("GET", "/api/submissions/%d" % sid)
        return body if st == 200 and body["status"] == "done" else None
    body = wait_until(done, 120, 0.2)
    return body["verdict"] if body else "timeout"


def run(srv, rep):
    anon, alice, prof = srv.client(), srv.client(), srv.client()
    alice.sign_up("alice")
    prof.sign_in("prof", "prof-password")
    students = [("anonymous", anon), ("student", alice)]

    # The course's own directory is published.
    st, body, _ = alice.call("GET", "/api/problems/" + SLUG)
    rep.check("directory problem is published", st == 200 and body["state"] == "published"
              and body["publish_at"] is None, json.dumps(body)[:200])

    # An upload arrives as a draft.
    st, body, _ = prof.call("POST", "/api/problems", package("draft-one"))
    rep.check("upload: 201", st == 201, json.dumps(body)[:300])
    st, body, _ = prof.call("GET", "/api/problems/draft-one")
    rep.check("instructor sees the draft with its state", st == 200 and body["state"] == "draft")
    rep.check("instructor's list has the draft", listed(prof, "draft-one"))
    hidden_everywhere(rep, "draft", "draft-one", students)
    st, body, _ = prof.submit("draft-one", source(GOOD))
    rep.check("instructor may judge a draft: 202", st == 202, json.dumps(body)[:200])
    if st == 202:
        rep.check("instructor's draft submission is accepted",
                  verdict_of(prof, body["id"]) == "accepted")
    expect(rep, "instructor runs a draft", prof.call(
        "POST", "/api/runs", {"problem": "draft-one", "source": source(GOOD)}), 202)

    # PATCH: bad input and wrong callers.
    for name, body, code in [
        ("unknown state", {"state": "hidden"}, "invalid_state"),
        ("state not a string", {"state": 1}, "invalid_request"),
        ("publish_at not a date", {"publish_at": "tomorrow"}, "invalid_date"),
        ("publish_at without a zone", {"publish_at": "2030-01-01T00:00:00"}, "invalid_date"),
        ("publish_at a number", {"publish_at": 5}, "invalid_date"),
        ("empty body", {}, "invalid_request"),
        ("unknown field", {"state": "draft", "visible": True}, "invalid_request"),
    ]:
        expect(rep, "PATCH " + name, prof.call("PATCH", "/api/problems/draft-one", body), 400, code)
    expect(rep, "PATCH an unknown problem", prof.call("PATCH", "/api/problems/no-such",
                                                       {"state": "published"}), 404, "not_found")
    expect(rep, "PATCH a bad slug", prof.call("PATCH", "/api/problems/Bad_Slug",
                                               {"state": "published"}), 400, "invalid_slug")
    expect(rep, "PATCH by a student", alice.call("PATCH", "/api/problems/draft-one",
                                                  {"state": "published"}), 403, "forbidden")
    expect(rep, "PATCH by an anonymous caller", anon.call("PATCH", "/api/problems/draft-one",
                                                           {"state": "published"}), 401,
           "unauthorized")
    st, _, r = anon.call("POST", "/api/problems/draft-one", {})
    allow = r.getheader("Allow") or ""
    rep.check("Allow lists PATCH and DELETE", st == 405 and "PATCH" in allow and "DELETE" in allow,
              allow)

    # Scheduled: published from a time still to come, then from one past.
    future = int(time.time() * 1000) + 3600 * 1000
    st, body, _ = prof.call("PATCH", "/api/problems/draft-one",
                            {"state": "published", "publish_at": iso(future)})
    rep.check("PATCH schedules it", st == 200 and body["state"] == "published"
              and body["publish_at"] == iso(future), json.dumps(body))
    hidden_everywhere(rep, "scheduled", "draft-one", students)
    past = int(time.time() * 1000) - 1000
    st, body, _ = prof.call("PATCH", "/api/problems/draft-one", {"publish_at": iso(past)})
    rep.check("PATCH publish_at alone keeps the state", st == 200
              and body["state"] == "published", json.dumps(body))
    for who, c in students:
        rep.check("past publish_at: %s sees it listed" % who, listed(c, "draft-one"))
        st, body, _ = c.call("GET", "/api/problems/draft-one")
        rep.check("past publish_at: %s reads it" % who, st == 200 and body["state"] == "published")
    st, body, _ = alice.submit("draft-one", source(GOOD))
    rep.check("published: a student submits (202)", st == 202, json.dumps(body)[:200])
    alice_sub = body.get("id") if st == 202 else None
    if alice_sub:
        rep.check("published: the student's submission is accepted",
                  verdict_of(alice, alice_sub) == "accepted")
    st, body, _ = prof.call("PATCH", "/api/problems/draft-one", {"state": "published"})
    rep.check("PATCH a state alone clears the schedule", st == 200 and body["publish_at"] is None)

    # Archived: readable, takes nothing new.
    st, body, _ = prof.call("PATCH", "/api/problems/draft-one", {"state": "archived"})
    rep.check("PATCH archives it", st == 200 and body["state"] == "archived")
    st, body, _ = alice.call("GET", "/api/problems/draft-one")
    rep.check("archived: readable, with its state", st == 200 and body["state"] == "archived")
    rep.check("archived: listed", listed(anon, "draft-one"))
    expect(rep, "archived: leaderboard", anon.call("GET", "/api/leaderboard/draft-one"), 200)
    if alice_sub:
        expect(rep, "archived: the author reads her submission",
               alice.call("GET", "/api/submissions/%d" % alice_sub), 200)
    expect(rep, "archived: submit", alice.submit("draft-one", source(GOOD)), 409,
           "problem_archived")
    expect(rep, "archived: instructor's submit too", prof.submit("draft-one", source(GOOD)), 409,
           "problem_archived")
    expect(rep, "archived: run", alice.call("POST", "/api/runs",
                                            {"problem": "draft-one", "source": source(GOOD)}),
           409, "problem_archived")

    # Back to draft: the author's own submission stays hers to read.
    expect(rep, "PATCH back to draft", prof.call("PATCH", "/api/problems/draft-one",
                                                 {"state": "draft"}), 200)
    hidden_everywhere(rep, "draft again", "draft-one", [("student", alice)])
    if alice_sub:
        expect(rep, "draft again: the author still reads her submission",
               alice.call("GET", "/api/submissions/%d" % alice_sub), 200)

    # A replacement keeps the state; an upload may name its state.
    st, body, _ = prof.call("PUT", "/api/problems/draft-one", package("draft-one"))
    rep.check("PUT replaces: version 2", st == 200 and body.get("version") == 2, json.dumps(body))
    st, body, _ = prof.call("GET", "/api/problems/draft-one")
    rep.check("the replacement keeps the draft state", st == 200 and body["state"] == "draft")
    st, body, _ = prof.call("POST", "/api/problems", package("open-one", state="published"))
    rep.check("upload with state published: 201", st == 201, json.dumps(body)[:200])
    rep.check("... and students see it at once", listed(alice, "open-one"))
    expect(rep, "upload with an unknown state", prof.call(
        "POST", "/api/problems", package("bad-state", state="visible")), 400, "invalid_state")
    expect(rep, "... which stored nothing", prof.call("GET", "/api/problems/bad-state"), 404,
           "not_found")

    # DELETE.
    expect(rep, "DELETE by a student", alice.call("DELETE", "/api/problems/open-one"), 403,
           "forbidden")
    expect(rep, "DELETE by an anonymous caller", anon.call("DELETE", "/api/problems/open-one"),
           401, "unauthorized")
    expect(rep, "DELETE an unknown problem", prof.call("DELETE", "/api/problems/no-such"), 404,
           "not_found")
    expect(rep, "DELETE a problem with submissions",
           prof.call("DELETE", "/api/problems/draft-one"), 409, "has_submissions")
    expect(rep, "... which is still there", prof.call("GET", "/api/problems/draft-one"), 200)
    alice.call("POST", "/api/problems/open-one/hints/1", {})
    expect(rep, "DELETE a problem without submissions",
           prof.call("DELETE", "/api/problems/open-one"), 204)
    expect(rep, "deleted: instructor gets 404", prof.call("GET", "/api/problems/open-one"), 404,
           "not_found")
    rep.check("deleted: not listed", not listed(prof, "open-one"))
    rep.check("deleted: no rows left", srv.db(
        "SELECT count(*) FROM problems WHERE slug = 'open-one'")[0][0] == 0)
    rep.check("deleted: no files left", not any(
        os.path.exists(os.path.join(srv.data, "problems", d, "open-one"))
        for d in os.listdir(os.path.join(srv.data, "problems"))))
    st, body, _ = prof.call("POST", "/api/problems", package("open-one"))
    rep.check("the slug starts again from version 1", st == 201 and body.get("version") == 1,
              json.dumps(body)[:200])
    st, body, _ = prof.call("GET", "/api/problems/open-one")
    rep.check("... as a draft", st == 200 and body["state"] == "draft" and body["version"] == 1)


def main():
    return run_scenario(sys.argv[1], "states", run, problems=problems_dir, workers=1)


if __name__ == "__main__":
    sys.exit(main())
