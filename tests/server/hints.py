"""Hints and walkthroughs (issue 10, item 2) through a real server:

- progressive hints: the count is public, opening needs a session (401),
  hints open in order (409 hint_locked), bad numbers are 400 invalid_hint,
  numbers past the count 404; opened hints come back on every later read of
  the problem, and only to the one who opened them; an unopened hint's text
  is in no response;
- the hint log: instructors see who opened which hint when (a student gets
  403, an anonymous caller 401), and the instructor's submission list says
  how many hints the author had opened;
- the walkthrough: 403 locked (saying what unlocks it) until the student's
  first accepted submission (a wrong answer does not unlock it), then its
  text; always open to instructors; open to everyone signed in from a date
  an instructor sets (a past date opens it, a future one does not, null
  removes it), with bad dates refused; the date outlives a re-upload;
  problem.json's default date applies until an instructor sets one;
- uploads carry hints and the walkthrough (and refuse bad ones: 400 or 422).

The server's problems directory holds a copy of softmax-stable whose hints
and walkthrough are tests/server/hints-fixture/ (whatever hints the real
package has are replaced), so the markers FIXTURE-HINT-n and
FIXTURE-WALKTHROUGH show where each text went.

    python3 tests/server/hints.py BUILD_DIR/attnjudge
"""
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, Report, Server, source, wait_until  # noqa: E402

SLUG = "softmax-stable"
COPY = "softmax-hints-copy"
FIXTURE = os.path.join(ROOT, "tests", "server", "hints-fixture")
GOOD = "tests/submissions/%s/accepted/plain_float.c" % SLUG
WRONG = "tests/submissions/%s/wrong_answer/max_init_zero.c" % SLUG
HINT_KEYS = {"n", "md", "html", "opened_at", "problem", "count", "version"}
WALK_KEYS = {"problem", "version", "md", "html", "unlocked_by"}


def problems_dir(tmp):
    """A problems directory with softmax-stable carrying the fixture's texts."""
    root = os.path.join(tmp, "problems")
    pkg = os.path.join(root, SLUG)
    shutil.copytree(os.path.join(ROOT, "problems", SLUG), pkg)
    shutil.rmtree(os.path.join(pkg, "hints"), ignore_errors=True)
    if os.path.exists(os.path.join(pkg, "walkthrough.md")):
        os.unlink(os.path.join(pkg, "walkthrough.md"))
    shutil.copytree(os.path.join(FIXTURE, "hints"), os.path.join(pkg, "hints"))
    shutil.copy(os.path.join(FIXTURE, "walkthrough.md"), pkg)
    return root


def fixture_text(name):
    with open(os.path.join(FIXTURE, name), encoding="utf-8") as f:
        return f.read()


def package(slug, hints, walkthrough, **problem_fields):
    """softmax-stable as an upload under slug, with these hints and walkthrough."""
    pj = json.load(open(os.path.join(ROOT, "problems", SLUG, "problem.json")))
    pj["slug"] = slug
    pj.update(problem_fields)
    pkg = {
        "problem_json": json.dumps(pj),
        "statement_md": source("problems/%s/statement.md" % SLUG),
        "starter_c": source("problems/%s/starter.c" % SLUG),
        "reference_c": source("reference/%s.c" % SLUG),
        "mistakes": {m["id"]: source("problems/%s/mistakes/%s.c" % (SLUG, m["id"]))
                     for m in pj.get("mistakes", [])},
        "state": "published",  # students read it (an upload is a draft by default)
    }
    if hints is not None:
        pkg["hints"] = hints
    if walkthrough is not None:
        pkg["walkthrough_md"] = walkthrough
    return pkg


def main():
    binary = sys.argv[1]
    rep = Report()
    tmp = tempfile.mkdtemp(prefix="attnjudge-hints.")
    # a server started as root runs as run_as, which must reach its data
    # directory by name (docs/operations.md)
    os.chmod(tmp, 0o711)
    srv = Server(binary, tmp, "hints", workers=1, problems=problems_dir(tmp))
    try:
        srv.add_user("prof", "prof-password", "instructor")
        srv.start()
        run(srv, rep)
    except Exception as e:  # noqa: BLE001 - a crash of the test is one failure
        rep.check("hints scenario ran to the end", False, repr(e))
    finally:
        srv.stop()
        if rep.failed:
            print("--- server log:\n" + srv.log_tail(30))
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()


def expect(rep, name, got, status, code=None):
    """got = (status, body, response): checks the status and the error code."""
    st, body, _ = got
    want = "%d %s" % (status, code or "")
    have = "%d %s" % (st, (body or {}).get("error", {}).get("code", "") if code else "")
    return rep.check("%s: %s" % (name, want.strip()), have == want, json.dumps(body)[:300])


def verdict_of(client, sid):
    def done():
        st, body, _ = client.call("GET", "/api/submissions/%d" % sid)
        return body if st == 200 and body["status"] == "done" else None
    body = wait_until(done, 120, 0.2)
    return body["verdict"] if body else "timeout"


def run(srv, rep):
    anon, alice, bob, prof = srv.client(), srv.client(), srv.client(), srv.client()
    alice.sign_up("alice")
    bob.sign_up("bob")
    prof.sign_in("prof", "prof-password")
    base = "/api/problems/%s" % SLUG

    # --- anonymous: the count, nothing else ---
    st, body, r = anon.call("GET", base)
    raw = json.dumps(body)
    rep.check("anonymous: the problem says 3 hints, none opened, a locked walkthrough",
              st == 200 and body["hints"] == {"count": 3, "opened": []}
              and body["walkthrough"] == {"available": True, "unlocked": False,
                                          "opens_at": None, "opens_at_source": None}, raw[-300:])
    rep.check("no hint or walkthrough text in the problem before it is opened",
              "FIXTURE-" not in raw)
    expect(rep, "anonymous opens a hint", anon.call("POST", base + "/hints/1"), 401, "unauthorized")
    expect(rep, "anonymous reads the walkthrough", anon.call("GET", base + "/walkthrough"), 401,
           "unauthorized")
    expect(rep, "anonymous reads the hint log", anon.call("GET", base + "/hint-log"), 401,
           "unauthorized")
    expect(rep, "anonymous sets the date", anon.call("PUT", base + "/walkthrough", {}), 401,
           "unauthorized")

    # --- progressive order and bad numbers ---
    expect(rep, "hint 2 before hint 1", alice.call("POST", base + "/hints/2"), 409, "hint_locked")
    for bad in ("0", "01", "-1", "abc", "1.5", "99999"):
        expect(rep, "hint number '%s'" % bad, alice.call("POST", base + "/hints/" + bad), 400,
               "invalid_hint")
    expect(rep, "hint 4 of 3", alice.call("POST", base + "/hints/4"), 404, "not_found")
    expect(rep, "a hint of an unknown problem", alice.call("POST", "/api/problems/nope/hints/1"),
           404, "not_found")
    expect(rep, "a hint of a malformed slug", alice.call("POST", "/api/problems/Bad_Slug/hints/1"),
           400, "invalid_slug")
    expect(rep, "opening with a body that has fields",
           alice.call("POST", base + "/hints/1", {"n": 1}), 400, "invalid_request")
    expect(rep, "GET on the hint route", alice.call("GET", base + "/hints/1"), 405,
           "method_not_allowed")
    st, h1, _ = alice.call("POST", base + "/hints/1")
    rep.check("hint 1 opens: 200 with its text only",
              st == 200 and set(h1) == HINT_KEYS and h1["n"] == 1 and h1["count"] == 3
              and "FIXTURE-HINT-1" in h1["html"] and "FIXTURE-HINT-2" not in json.dumps(h1)
              and h1["opened_at"], json.dumps(h1)[:300])
    st, again, _ = alice.call("POST", base + "/hints/1", {})
    rep.check("opening hint 1 again answers the same, first time kept",
              st == 200 and again["opened_at"] == h1["opened_at"])
    expect(rep, "hint 3 right after hint 1", alice.call("POST", base + "/hints/3"), 409,
           "hint_locked")
    st, h2, _ = alice.call("POST", base + "/hints/2")
    rep.check("hint 2 opens after hint 1; its math reaches the page as text for KaTeX",
              st == 200 and "FIXTURE-HINT-2" in h2["html"] and "$$y_{ij}" in h2["html"])

    # --- opened hints stay opened, for their owner only ---
    st, body, _ = alice.call("GET", base)
    opened = body["hints"]["opened"]
    rep.check("a later read of the problem shows hints 1 and 2 opened, in order",
              [o["n"] for o in opened] == [1, 2]
              and all("FIXTURE-HINT-%d" % o["n"] in o["html"] for o in opened)
              and "FIXTURE-HINT-3" not in json.dumps(body), json.dumps(body["hints"])[:300])
    st, body, _ = bob.call("GET", base)
    rep.check("another student sees none of them", body["hints"]["opened"] == [])
    st, body, _ = prof.call("GET", base)
    rep.check("an instructor sees every hint", [o["n"] for o in body["hints"]["opened"]]
              == [1, 2, 3] and all(o["opened_at"] is None for o in body["hints"]["opened"]))
    st, _, _ = prof.call("POST", base + "/hints/3")
    rows = srv.db("SELECT u.username, h.n, h.opened_at, h.problem_version FROM hint_opens h"
                  " JOIN users u ON u.id = h.user_id ORDER BY u.username, h.n")
    rep.check("the database records alice's hints 1 and 2 (an instructor's opening is not "
              "recorded)", st == 200 and [(r[0], r[1], r[3]) for r in rows]
              == [("alice", 1, 1), ("alice", 2, 1)] and all(r[2] > 0 for r in rows), repr(rows))

    # --- the hint log ---
    expect(rep, "a student reads the hint log", bob.call("GET", base + "/hint-log"), 403,
           "forbidden")
    st, log, _ = prof.call("GET", base + "/hint-log")
    rep.check("the instructor's hint log: alice opened 1 and 2, with times",
              st == 200 and log["count"] == 3
              and [(o["user"], o["n"]) for o in log["opens"]] == [("alice", 1), ("alice", 2)]
              and log["opens"][0]["opened_at"] == h1["opened_at"], json.dumps(log)[:300])
    expect(rep, "hint log of an unknown problem", prof.call("GET", "/api/problems/nope/hint-log"),
           404, "not_found")

    # --- the walkthrough: locked until accepted ---
    st, body, _ = alice.call("GET", base + "/walkthrough")
    rep.check("walkthrough before any submission: 403 locked, saying what unlocks it",
              st == 403 and body["error"]["code"] == "locked"
              and "accepted submission" in body["error"]["message"]
              and "FIXTURE-WALKTHROUGH" not in json.dumps(body), json.dumps(body))
    st, sub, _ = alice.submit(SLUG, source(WRONG))
    rep.check("alice's wrong answer is judged wrong_answer",
              st == 202 and verdict_of(alice, sub["id"]) == "wrong_answer")
    expect(rep, "walkthrough after a wrong answer", alice.call("GET", base + "/walkthrough"), 403,
           "locked")
    st, sub, _ = alice.submit(SLUG, source(GOOD))
    rep.check("alice's correct solution is judged accepted",
              st == 202 and verdict_of(alice, sub["id"]) == "accepted")
    st, walk, _ = alice.call("GET", base + "/walkthrough")
    rep.check("walkthrough after the first acceptance: 200, unlocked_by accepted, with its code",
              st == 200 and set(walk) == WALK_KEYS and walk["unlocked_by"] == "accepted"
              and "FIXTURE-WALKTHROUGH" in walk["html"] and "language-c" in walk["html"],
              json.dumps(walk)[:300])
    st, body, _ = alice.call("GET", base)
    rep.check("the problem says the walkthrough is unlocked for alice",
              body["walkthrough"]["unlocked"] is True)
    expect(rep, "bob's walkthrough stays locked", bob.call("GET", base + "/walkthrough"), 403,
           "locked")
    st, walk, _ = prof.call("GET", base + "/walkthrough")
    rep.check("an instructor always reads the walkthrough",
              st == 200 and walk["unlocked_by"] == "instructor")
    st, subs, _ = prof.call("GET", "/api/submissions?user=alice&problem=" + SLUG)
    rep.check("the instructor's list says alice had opened 2 hints when submitting",
              st == 200 and [s["hints_opened"] for s in subs["submissions"]] == [2, 2],
              json.dumps(subs)[:300])

    # --- dates: future, past, removed; bad input ---
    put = lambda c, body, **kw: c.call("PUT", base + "/walkthrough", body, **kw)  # noqa: E731
    st, body, _ = put(prof, {"opens_at": "2099-01-01T00:00:00Z"})
    rep.check("an instructor sets a future date",
              st == 200 and body == {"problem": SLUG, "opens_at": "2099-01-01T00:00:00.000Z",
                                     "opens_at_source": "instructor"}, json.dumps(body))
    st, body, _ = bob.call("GET", base + "/walkthrough")
    rep.check("a future date leaves it locked, and the message names the date",
              st == 403 and "2099-01-01T00:00:00.000Z" in body["error"]["message"])
    st, body, _ = bob.call("GET", base)
    rep.check("the problem shows the date and who set it",
              body["walkthrough"]["opens_at"] == "2099-01-01T00:00:00.000Z"
              and body["walkthrough"]["opens_at_source"] == "instructor"
              and body["walkthrough"]["unlocked"] is False)
    st, body, _ = put(prof, {"opens_at": "2020-01-01T00:00:00+02:00"})
    rep.check("a past date with an offset is stored in UTC",
              st == 200 and body["opens_at"] == "2019-12-31T22:00:00.000Z", json.dumps(body))
    st, walk, _ = bob.call("GET", base + "/walkthrough")
    rep.check("a past date opens the walkthrough to a student who never solved it",
              st == 200 and walk["unlocked_by"] == "date" and "FIXTURE-WALKTHROUGH" in walk["md"])
    for bad in ("2020-13-01T00:00:00Z", "2021-02-29T00:00:00Z", "2020-01-01",
                "2020-01-01T00:00:00", "tomorrow", ""):
        expect(rep, "date '%s'" % bad, put(prof, {"opens_at": bad}), 400, "invalid_date")
    expect(rep, "a date as a number", put(prof, {"opens_at": 1577836800000}), 400,
           "invalid_request")
    expect(rep, "an unknown field", put(prof, {"when": "2020-01-01T00:00:00Z"}), 400,
           "invalid_request")
    expect(rep, "a date that is not JSON",
           put(prof, {"opens_at": "2020-01-01T00:00:00Z"}, headers={"Content-Type": "text/plain"}),
           415, "unsupported_media_type")
    expect(rep, "a student sets the date", put(bob, {"opens_at": "2020-01-01T00:00:00Z"}), 403,
           "forbidden")
    expect(rep, "the date of an unknown problem",
           prof.call("PUT", "/api/problems/nope/walkthrough", {"opens_at": None}), 404, "not_found")
    st, walk, _ = bob.call("GET", base + "/walkthrough")
    rep.check("refused dates change nothing", st == 200 and walk["unlocked_by"] == "date")
    st, body, _ = put(prof, {"opens_at": None})
    rep.check("opens_at null removes the date", st == 200 and body["opens_at"] is None)
    st, body, _ = bob.call("GET", base + "/walkthrough")
    rep.check("without a date it is locked again, and the message names no date",
              st == 403 and body["error"]["code"] == "locked" and "UTC" not in body["error"]["message"])

    # --- uploads carry hints and the walkthrough; the date outlives them ---
    put(prof, {"opens_at": "2020-01-01T00:00:00Z"})
    st, body, _ = prof.call("PUT", base, package(SLUG, ["FIXTURE-HINT-1 (v2)\n", "FIXTURE-HINT-2 (v2)\n"],
                                                 fixture_text("walkthrough.md")))
    rep.check("a new version with 2 hints is uploaded", st == 200 and body["version"] == 2,
              json.dumps(body)[:300])
    vdir = os.path.join(srv.data, "problems", "v2", SLUG)
    rep.check("the stored version holds hints/1.md, hints/2.md and walkthrough.md",
              sorted(os.listdir(os.path.join(vdir, "hints"))) == ["1.md", "2.md"]
              and os.path.exists(os.path.join(vdir, "walkthrough.md")))
    st, body, _ = alice.call("GET", base)
    rep.check("the new version's count and texts; alice's openings carry over",
              body["version"] == 2 and body["hints"]["count"] == 2
              and [o["n"] for o in body["hints"]["opened"]] == [1, 2]
              and "(v2)" in body["hints"]["opened"][0]["html"], json.dumps(body["hints"])[:300])
    st, body, _ = bob.call("GET", base + "/walkthrough")
    rep.check("the instructor's date survives the re-upload",
              st == 200 and body["unlocked_by"] == "date" and body["version"] == 2)
    expect(rep, "hint 3 of a version with 2", alice.call("POST", base + "/hints/3"), 404,
           "not_found")
    expect(rep, "an upload with an empty hint",
           prof.call("PUT", base, package(SLUG, ["  \n"], None)), 422, "invalid_problem")
    expect(rep, "an upload with a hint that is no string",
           prof.call("PUT", base, package(SLUG, [1], None)), 400, "invalid_request")
    expect(rep, "an upload with 10 hints",
           prof.call("PUT", base, package(SLUG, ["h\n"] * 10, None)), 400, "invalid_request")
    st, body, _ = prof.call("PUT", base, package(SLUG, None, None,
                                                  walkthrough_opens_at="2020-01-01T00:00:00Z"))
    rep.check("a default date without a walkthrough is refused, naming the field",
              st == 422 and "walkthrough_opens_at" in body["error"]["message"], json.dumps(body))
    rows = srv.db("SELECT current_version FROM problems WHERE slug = ?", (SLUG,))
    rep.check("refused uploads leave version 2 current", rows == [(2,)], repr(rows))

    # --- problem.json's default date, until an instructor sets one ---
    st, body, _ = prof.call("POST", "/api/problems",
                            package(COPY, None, "FIXTURE-WALKTHROUGH of the copy\n",
                                    walkthrough_opens_at="2000-01-01T01:00:00+01:00"))
    rep.check("a copy with only a walkthrough and a default date is uploaded",
              st == 201, json.dumps(body)[:300])
    st, body, _ = bob.call("GET", "/api/problems/" + COPY)
    rep.check("the package's date shows as its source",
              body["hints"] == {"count": 0, "opened": []}
              and body["walkthrough"]["opens_at"] == "2000-01-01T00:00:00.000Z"
              and body["walkthrough"]["opens_at_source"] == "package"
              and body["walkthrough"]["unlocked"] is True, json.dumps(body["walkthrough"]))
    st, body, _ = bob.call("GET", "/api/problems/%s/walkthrough" % COPY)
    rep.check("the package's past date opens it", st == 200 and body["unlocked_by"] == "date")
    expect(rep, "a hint of a problem without hints",
           bob.call("POST", "/api/problems/%s/hints/1" % COPY), 404, "not_found")
    prof.call("PUT", "/api/problems/%s/walkthrough" % COPY, {"opens_at": None})
    expect(rep, "an instructor's 'no date' overrides the package's",
           bob.call("GET", "/api/problems/%s/walkthrough" % COPY), 403, "locked")
    expect(rep, "the walkthrough of an unknown problem",
           prof.call("GET", "/api/problems/nope/walkthrough"), 404, "not_found")
    st, body, _ = prof.call("PUT", "/api/problems/" + COPY, package(COPY, None, None))
    rep.check("a version without a walkthrough is uploaded", st == 200 and body["version"] == 2)
    st, body, _ = prof.call("GET", "/api/problems/%s/walkthrough" % COPY)
    rep.check("its walkthrough is 404, even for an instructor",
              st == 404 and "no walkthrough" in body["error"]["message"])
    st, body, _ = bob.call("GET", "/api/problems/" + COPY)
    rep.check("and the problem says there is none",
              body["walkthrough"]["available"] is False and body["walkthrough"]["unlocked"] is False)

    # --- no request of this scenario failed inside the server ---
    log = open(srv.conf["access_log"]).read()
    rep.check("no 5xx answer in the access log", re.search(r'" 5\d\d ', log) is None)


if __name__ == "__main__":
    sys.exit(main())
