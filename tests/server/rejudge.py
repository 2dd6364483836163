"""Rejudges that keep what they replace (issue 11, item 5), through a real
server. The problem "rj" (softmax-stable with three tests) gets a second
version whose tests differ, so that verdicts really change:

- alice's solution breaks on rows longer than 100: accepted on version 1,
  wrong_answer on version 2 (which tests cols = 5000);
- bob's breaks on cols = 13: wrong_answer on version 1 (its test
  odd-sizes), accepted on version 2 (which drops that test);
- carol's is right: accepted on both.

Checked: the problem rejudge's report (old → new verdict, score and
version per submission, trend, summary, state pending → done), a
single-submission rejudge, the first report once a later rejudge took a
submission again (superseded_by), the verdict history on the instructor's
submission view (and not on the student's), 409 not_judged for a cancelled
submission, and every wrong caller and bad id.

    python3 tests/server/rejudge.py BUILD_DIR/attnjudge
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, expect, run_scenario, source, wait_until  # noqa: E402

BASE = "softmax-stable"
SLUG = "rj"
GOOD = source("tests/submissions/%s/accepted/plain_float.c" % BASE)
V1_TESTS = ["sample-small", "sample-large-logits", "odd-sizes"]
V2_TESTS = ["sample-small", "sample-large-logits", "long-rows"]


def problem_json(tests):
    pj = json.load(open(os.path.join(ROOT, "problems", BASE, "problem.json")))
    pj["slug"] = SLUG
    pj["title"] = "Rejudge fixture"
    pj["tests"] = [t for t in pj["tests"] if t["name"] in tests]
    pj.pop("mistakes", None)
    return pj


def problems_dir(tmp):
    root = os.path.join(tmp, "problems")
    pkg = os.path.join(root, SLUG)
    shutil.copytree(os.path.join(ROOT, "problems", BASE), pkg)
    shutil.rmtree(os.path.join(pkg, "mistakes"), ignore_errors=True)
    with open(os.path.join(pkg, "problem.json"), "w") as f:
        json.dump(problem_json(V1_TESTS), f)
    shutil.copy(os.path.join(ROOT, "reference", BASE + ".c"), os.path.join(pkg, "reference.c"))
    return root


def breaking(condition):
    """GOOD, with one output spoiled when condition (on rows, cols) holds."""
    return GOOD.rstrip()[:-1] + "    if (%s)\n        y[0] = 5.0f;\n}\n" % condition


def verdict_of(client, sid):
    def done():
        st, body, _ = client.call("GET", "/api/submissions/%d" % sid)
        return body if st == 200 and body["status"] == "done" else None
    body = wait_until(done, 120, 0.2)
    return body["verdict"] if body else "timeout"


def report_when_done(prof, rid):
    def done():
        st, body, _ = prof.call("GET", "/api/rejudges/%d" % rid)
        return body if st == 200 and body["state"] == "done" else None
    return wait_until(done, 180, 0.3)


def run(srv, rep):
    anon, prof = srv.client(), srv.client()
    prof.sign_in("prof", "prof-password")
    users = {}
    subs = {}
    for name, src in [("alice", breaking("cols > 100")), ("bob", breaking("cols == 13")),
                      ("carol", GOOD)]:
        c = srv.client()
        c.sign_up(name)
        users[name] = c
        st, body, _ = c.submit(SLUG, src)
        subs[name] = body["id"]
    want_v1 = {"alice": "accepted", "bob": "wrong_answer", "carol": "accepted"}
    for name, sid in subs.items():
        rep.check("version 1: %s's is %s" % (name, want_v1[name]),
                  verdict_of(users[name], sid) == want_v1[name])

    # A cancelled submission has nothing to rejudge.
    dave = srv.client()
    dave.sign_up("dave")
    cancelled = None
    for _ in range(5):
        dave.submit(SLUG, GOOD)
        st, body, _ = dave.submit(SLUG, GOOD)
        if st == 202 and dave.call("POST", "/api/submissions/%d/cancel" % body["id"], {})[0] == 200:
            cancelled = body["id"]
            break
        wait_until(lambda: dave.call("GET", "/api/submissions?limit=5")[1]["submissions"][0]
                   ["status"] == "done", 60, 0.2)
    rep.check("a submission was cancelled while queued", cancelled is not None)
    if cancelled:
        expect(rep, "rejudge a cancelled submission", prof.call(
            "POST", "/api/submissions/%d/rejudge" % cancelled, {}), 409, "not_judged")

    # Authorization and bad input.
    for method, path in [("POST", "/api/submissions/%d/rejudge" % subs["carol"]),
                         ("GET", "/api/rejudges"), ("GET", "/api/rejudges/1"),
                         ("POST", "/api/problems/%s/rejudge" % SLUG)]:
        body = {} if method == "POST" else None
        expect(rep, "student: %s %s" % (method, path), users["carol"].call(method, path, body),
               403, "forbidden")
        expect(rep, "anonymous: %s %s" % (method, path), anon.call(method, path, body), 401,
               "unauthorized")
    expect(rep, "rejudge an unknown submission", prof.call(
        "POST", "/api/submissions/999999/rejudge", {}), 404, "not_found")
    expect(rep, "rejudge a bad id", prof.call("POST", "/api/submissions/abc/rejudge", {}), 400,
           "invalid_id")
    expect(rep, "report of a bad id", prof.call("GET", "/api/rejudges/0"), 400, "invalid_id")
    expect(rep, "report of an unknown rejudge", prof.call("GET", "/api/rejudges/999"), 404,
           "not_found")
    expect(rep, "rejudge an unknown problem", prof.call(
        "POST", "/api/problems/no-such/rejudge", {}), 404, "not_found")
    expect(rep, "rejudge with a field", prof.call(
        "POST", "/api/problems/%s/rejudge" % SLUG, {"all": True}), 400, "invalid_request")

    # Version 2, then the problem's rejudge.
    pkg = {"problem_json": json.dumps(problem_json(V2_TESTS)),
           "statement_md": source("problems/%s/statement.md" % BASE),
           "starter_c": source("problems/%s/starter.c" % BASE),
           "reference_c": source("reference/%s.c" % BASE)}
    st, body, _ = prof.call("PUT", "/api/problems/" + SLUG, pkg)
    rep.check("version 2 uploaded", st == 200 and body.get("version") == 2, json.dumps(body))
    st, body, _ = prof.call("POST", "/api/problems/%s/rejudge" % SLUG, {})
    rep.check("problem rejudge: 202 with a rejudge id", st == 202 and body["queued"] == 4
              and isinstance(body.get("rejudge"), int), json.dumps(body))
    rid = body.get("rejudge")
    st, first, _ = prof.call("GET", "/api/rejudges/%d" % rid)
    rep.check("the report right away: pending, the old verdicts kept", st == 200
              and first["problem"] == SLUG and first["count"] == 4
              and first["requested_by"] == "prof" and first["submission"] is None
              and all(i["old"]["version"] == 1 for i in first["items"]), json.dumps(first)[:400])
    report = report_when_done(prof, rid)
    rep.check("the report is done", report is not None)
    if not report:
        return
    items = {i["user"]: i for i in report["items"] if i["submission"] in subs.values()}
    want = {"alice": ("accepted", "wrong_answer", "worse"),
            "bob": ("wrong_answer", "accepted", "improved"),
            "carol": ("accepted", "accepted", "unchanged")}
    for name, (old, new, trend) in want.items():
        i = items.get(name, {})
        rep.check("report: %s %s -> %s (%s), version 1 -> 2" % (name, old, new, trend),
                  i.get("old", {}).get("verdict") == old and i["new"]["verdict"] == new
                  and i["trend"] == trend and i["changed"] == (trend != "unchanged")
                  and i["old"]["version"] == 1 and i["new"]["version"] == 2
                  and i["superseded_by"] is None, json.dumps(i))
    rep.check("report: the summary counts", report["summary"] == {
        "changed": 2, "improved": 1, "worse": 1, "unchanged": 2, "pending": 0},
        json.dumps(report["summary"]))
    rep.check("report: the cancelled submission was not taken",
              all(i["submission"] != cancelled for i in report["items"]))

    # One submission again: its own report; the first one now points to it.
    st, body, _ = prof.call("POST", "/api/submissions/%d/rejudge" % subs["alice"], {})
    rep.check("single rejudge: 202", st == 202 and body["queued"] == 1
              and body["submission"] == subs["alice"], json.dumps(body))
    rid2 = body.get("rejudge")
    second = report_when_done(prof, rid2) if rid2 else None
    rep.check("single rejudge's report: one item, wrong_answer both times", second is not None
              and second["submission"] == subs["alice"] and len(second["items"]) == 1
              and second["items"][0]["old"]["verdict"] == "wrong_answer"
              and second["items"][0]["new"]["verdict"] == "wrong_answer",
              json.dumps(second)[:400])
    st, again, _ = prof.call("GET", "/api/rejudges/%d" % rid)
    alice_item = [i for i in again["items"] if i["submission"] == subs["alice"]][0]
    rep.check("the first report: alice's item superseded, still showing its own result",
              alice_item["superseded_by"] == rid2 and alice_item["new"]["verdict"]
              == "wrong_answer" and alice_item["trend"] == "worse", json.dumps(alice_item))
    st, lst, _ = prof.call("GET", "/api/rejudges")
    rep.check("the list: newest first", st == 200 and [r["id"] for r in lst["rejudges"]][:2]
              == [rid2, rid], json.dumps(lst)[:300])

    # History: kept for instructors, not shown to students.
    st, sub, _ = prof.call("GET", "/api/submissions/%d" % subs["alice"])
    hist = sub.get("history", [])
    rep.check("history: both replaced judgements, oldest first", st == 200
              and [(h["rejudge"], h["verdict"], h["version"]) for h in hist]
              == [(rid, "accepted", 1), (rid2, "wrong_answer", 2)], json.dumps(hist))
    st, sub, _ = users["alice"].call("GET", "/api/submissions/%d" % subs["alice"])
    rep.check("history: not in the student's view", st == 200 and "history" not in sub)


def main():
    return run_scenario(sys.argv[1], "rejudge", run, problems=problems_dir, workers=1)


if __name__ == "__main__":
    sys.exit(main())
