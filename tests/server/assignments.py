"""Assignments, grades an LMS can import, and the class list (issue 11,
items 2 and 3), through a real server, with a small simulated class:

- the class list is imported from CSV (a dry run first; a list with errors
  imports nothing and names each bad line); new accounts get one-time
  passwords; student ids and display names are set, also by PATCH;
- an assignment of three problems, open 30 days ago, due 23 days ago, late
  work accepted for 3 more days at 10 % per started day; submission times
  are set in the database so that each falls where the test wants it:
  on time, 1.5 days late (2 started days: × 0.8), after the cut-off, before
  the opening;
- grades.csv: one row per student (the one who never submitted included,
  all zeros), a column per problem and a total, exactly the expected text
  (printed, for the closing note), with RFC 4180 quoting and the
  spreadsheet-formula guard; the JSON matrix links each cell to its
  submission; a student's own status per problem;
- validation of every field, 409 assignment_exists, rename by PUT, DELETE,
  visibility of an assignment not open yet, and every wrong caller.

    python3 tests/server/assignments.py BUILD_DIR/attnjudge
"""
import json
import os
import shutil
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, expect, run_scenario, source, wait_until  # noqa: E402

PROBLEMS = ["softmax-stable", "layernorm", "split-merge-heads"]
DAY = 24 * 3600 * 1000
FILES = {
    "softmax-stable": {"ok": "accepted/plain_float.c", "wrong": "wrong_answer/max_init_zero.c"},
    "layernorm": {"ok": "accepted/plain_float.c"},
    "split-merge-heads": {"ok": "accepted/reference_loops.c",
                          "wrong": "wrong_answer/merge_without_transpose.c"},
}
CLASS_LIST = (
    "username,student_id,display_name\n"
    "ann,S001,Ann Archer\n"
    "ben,S002,\"Bennett, Ben\"\n"
    "cho,S003,\"Cho \"\"CJ\"\" Jin\"\n"
    "dia,S004,=HYPERLINK(\"x\")\n"
    "eve,S005,Eve\n")


def iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + ".000Z"


def problems_dir(tmp):
    root = os.path.join(tmp, "problems")
    for slug in PROBLEMS:
        shutil.copytree(os.path.join(ROOT, "problems", slug), os.path.join(root, slug))
    return root


def raw_get(client, path):
    r, raw = client.exchange("GET", path, headers={"Authorization": "Bearer " + client.token})
    return r.status, raw.decode("utf-8"), r


def judged(client, sid):
    def done():
        st, body, _ = client.call("GET", "/api/submissions/%d" % sid)
        return body if st == 200 and body["status"] == "done" else None
    return wait_until(done, 120, 0.2)


def fmt(v):
    return ("%.2f" % v).rstrip("0").rstrip(".")


def run(srv, rep):
    anon, prof = srv.client(), srv.client()
    prof.sign_in("prof", "prof-password")

    # --- the class list ---
    bad = "username,student_id\nann,S001\n-bad-,S9\nann,S010\n\"unclosed,S7\n"
    st, body, _ = prof.call("POST", "/api/users/import", {"csv": bad})
    lines = [(e["line"], e["message"]) for e in (body or {}).get("errors", [])]
    rep.check("import with errors: 400 invalid_class_list naming lines 3 and 4 and 5",
              st == 400 and body["error"]["code"] == "invalid_class_list"
              and [ln for ln, _ in lines] == [3, 4, 5], json.dumps(body))
    rep.check("... and nothing was imported", srv.db(
        "SELECT count(*) FROM users WHERE username = 'ann'")[0][0] == 0)
    expect(rep, "import without a column that gives a username", prof.call(
        "POST", "/api/users/import", {"csv": "colour,student_id\nred,1\n"}), 400,
        "invalid_class_list")
    st, body, _ = prof.call("POST", "/api/users/import", {"csv": CLASS_LIST, "dry_run": True})
    rep.check("dry run: five would be created, none stored", st == 200 and body["dry_run"] is True
              and [c["username"] for c in body["created"]] == ["ann", "ben", "cho", "dia", "eve"]
              and all("temporary_password" not in c for c in body["created"])
              and srv.db("SELECT count(*) FROM users WHERE role = 'student'")[0][0] == 0,
              json.dumps(body)[:300])
    st, body, _ = prof.call("POST", "/api/users/import", {"csv": CLASS_LIST})
    rep.check("import: five accounts with one-time passwords", st == 200
              and len(body["created"]) == 5 and all(len(c["temporary_password"]) >= 12
                                                    for c in body["created"]),
              json.dumps(body)[:300])
    temp = {c["username"]: c["temporary_password"] for c in body.get("created", [])}
    st, body, _ = prof.call("POST", "/api/users/import", {"csv": CLASS_LIST})
    rep.check("import again: the same five are updated, none created", st == 200
              and body["created"] == [] and len(body["updated"]) == 5, json.dumps(body)[:300])
    students = {}
    for name in ["ann", "ben", "cho", "dia", "eve"]:
        c = srv.client()
        c.sign_in(name, temp[name])
        st, _, _ = c.call("POST", "/api/users/me/password",
                          {"old_password": temp[name], "new_password": name + "-password"})
        rep.check("%s chooses a password" % name, st == 200)
        students[name] = c
    st, body, _ = prof.call("GET", "/api/users")
    rep.check("GET /api/users: the class list with ids and names", st == 200 and [
        (u["username"], u["student_id"], u["display_name"]) for u in body["users"]] == [
        ("ann", "S001", "Ann Archer"), ("ben", "S002", "Bennett, Ben"),
        ("cho", "S003", 'Cho "CJ" Jin'), ("dia", "S004", '=HYPERLINK("x")'),
        ("eve", "S005", "Eve")], json.dumps(body)[:400])
    st, body, _ = prof.call("PATCH", "/api/users/eve", {"display_name": "Eve Evans"})
    rep.check("PATCH a display name", st == 200 and body["display_name"] == "Eve Evans"
              and body["student_id"] == "S005", json.dumps(body))
    st, body, _ = prof.call("PATCH", "/api/users/eve", {"student_id": ""})
    rep.check("PATCH \"\" clears the student id", st == 200 and body["student_id"] is None,
              json.dumps(body))
    prof.call("PATCH", "/api/users/eve", {"student_id": "S005"})
    for name, b, code in [("an unknown field", {"nick": "x"}, "invalid_request"),
                          ("nothing", {}, "invalid_request"),
                          ("a control character", {"display_name": "a\u0007b"}, "invalid_request"),
                          ("a number", {"student_id": 5}, "invalid_request")]:
        expect(rep, "PATCH with " + name, prof.call("PATCH", "/api/users/eve", b), 400, code)
    expect(rep, "PATCH an unknown user", prof.call("PATCH", "/api/users/nobody",
                                                   {"display_name": "x"}), 404, "not_found")

    # --- an assignment ---
    now = int(time.time()) * 1000  # whole seconds, as the ISO dates carry them
    opens, due = now - 30 * DAY, now - 23 * DAY
    cutoff = due + 3 * DAY
    body = {"slug": "week-1", "title": "Week 1: softmax and friends", "problems": PROBLEMS,
            "opens_at": iso(opens), "due_at": iso(due),
            "late_policy": {"penalty_per_day": 0.1, "cutoff": iso(cutoff)}}
    for name, change, code in [
        ("a bad slug", {"slug": "Week 1"}, "invalid_slug"),
        ("no title", {"title": ""}, "invalid_request"),
        ("no problems", {"problems": []}, "invalid_request"),
        ("a problem twice", {"problems": ["layernorm", "layernorm"]}, "invalid_request"),
        ("an unknown problem", {"problems": ["no-such-problem"]}, "unknown_problem"),
        ("a bad date", {"opens_at": "yesterday"}, "invalid_date"),
        ("due before opens", {"due_at": iso(opens - DAY)}, "invalid_date"),
        ("a cut-off before due", {"late_policy": {"penalty_per_day": 0.1,
                                                  "cutoff": iso(due - 1000)}}, "invalid_date"),
        ("a penalty over 1", {"late_policy": {"penalty_per_day": 2, "cutoff": iso(cutoff)}},
         "invalid_request"),
        ("an unknown policy", {"late_policy": "lenient"}, "invalid_request"),
    ]:
        expect(rep, "create with " + name, prof.call("POST", "/api/assignments",
                                                     dict(body, **change)), 400, code)
    expect(rep, "a student creates one", students["ann"].call("POST", "/api/assignments", body),
           403, "forbidden")
    expect(rep, "an anonymous caller creates one", anon.call("POST", "/api/assignments", body),
           401, "unauthorized")
    st, got, _ = prof.call("POST", "/api/assignments", body)
    rep.check("create: 201 with its problems and policy", st == 201
              and [p["slug"] for p in got["problems"]] == PROBLEMS
              and got["late_policy"] == {"penalty_per_day": 0.1, "cutoff": iso(cutoff)}
              and got["phase"] == "closed", json.dumps(got)[:400])
    expect(rep, "create it again", prof.call("POST", "/api/assignments", body), 409,
           "assignment_exists")
    future = dict(body, slug="week-9", title="Later", opens_at=iso(now + 5 * DAY),
                  due_at=iso(now + 12 * DAY), late_policy="none")
    expect(rep, "create an assignment that opens later", prof.call(
        "POST", "/api/assignments", future), 201)

    # --- the class's submissions, placed in time ---
    plan = [  # (student, problem, file, created_at)
        ("ann", "softmax-stable", "ok", opens + DAY),
        ("ann", "layernorm", "ok", opens + 2 * DAY),
        ("ann", "split-merge-heads", "wrong", due - 1000),
        ("ben", "softmax-stable", "ok", due + DAY + DAY // 2),      # 2 started days late: x 0.8
        ("cho", "softmax-stable", "wrong", opens + 3 * DAY),
        ("cho", "softmax-stable", "ok", cutoff + 1000),             # after the cut-off
        ("eve", "layernorm", "ok", opens - 1000),                   # before the opening
        ("eve", "split-merge-heads", "ok", due),                    # exactly at the due time
    ]
    scores = {}
    for who, slug, kind, at in plan:
        src = source("tests/submissions/%s/%s" % (slug, FILES[slug][kind]))
        st, b, _ = students[who].submit(slug, src)
        sub = judged(students[who], b["id"]) if st == 202 else None
        rep.check("%s's %s (%s) is judged" % (who, slug, kind), sub is not None
                  and (sub["verdict"] == "accepted") == (kind == "ok"), json.dumps(sub)[:200])
        if srv.conf.get("database", "").startswith("postgres"):  # serverlib's PostgreSQL pass
            srv.db("UPDATE submissions SET created_at = ? WHERE id = ?", (at, b["id"]))
        else:
            con = sqlite3.connect(os.path.join(srv.data, "attnjudge.db"), timeout=30,
                                  isolation_level=None)
            con.execute("UPDATE submissions SET created_at = ? WHERE id = ?", (at, b["id"]))
            con.close()
        scores[(who, slug, at)] = (sub or {}).get("score") or 0
    wrong_split = scores[("ann", "split-merge-heads", due - 1000)]
    wrong_soft = scores[("cho", "softmax-stable", opens + 3 * DAY)]
    expected = {
        "ann": [100, 100, wrong_split], "ben": [80, 0, 0], "cho": [wrong_soft, 0, 0],
        "dia": [0, 0, 0], "eve": [0, 0, 100]}
    names = {"ann": ("S001", "Ann Archer"), "ben": ("S002", '"Bennett, Ben"'),
             "cho": ("S003", '"Cho ""CJ"" Jin"'), "dia": ("S004", '"\'=HYPERLINK(""x"")"'),
             "eve": ("S005", "Eve Evans")}
    want = "username,student_id,display_name,%s,total\r\n" % ",".join(PROBLEMS)
    for who in ["ann", "ben", "cho", "dia", "eve"]:
        cells = expected[who]
        want += "%s,%s,%s,%s,%s\r\n" % (who, names[who][0], names[who][1],
                                        ",".join(fmt(v) for v in cells), fmt(sum(cells)))

    st, text, r = raw_get(prof, "/api/assignments/week-1/grades.csv")
    rep.check("grades.csv: text/csv, an attachment", st == 200
              and r.getheader("Content-Type", "").startswith("text/csv")
              and "week-1-grades.csv" in r.getheader("Content-Disposition", ""))
    rep.check("grades.csv: exactly the expected matrix", text == want,
              "\n--- got:\n%s--- want:\n%s" % (text, want))
    print("--- grades.csv of the simulated class:\n" + text.replace("\r\n", "\n"), end="")
    st, m, _ = prof.call("GET", "/api/assignments/week-1/grades")
    ann = [s for s in m.get("students", []) if s["username"] == "ann"][0] if st == 200 else {}
    rep.check("grades JSON: cells link to their submissions", st == 200
              and m["problems"] == PROBLEMS and all(c["submission"] for c in ann["cells"])
              and ann["cells"][0]["accepted"] is True, json.dumps(ann)[:300])
    ben = [s for s in m.get("students", []) if s["username"] == "ben"][0] if st == 200 else {}
    rep.check("grades JSON: ben's late cell says late", ben and ben["cells"][0]["late"] is True
              and ben["cells"][0]["score"] == 80, json.dumps(ben)[:300])
    st, mine, _ = students["ben"].call("GET", "/api/assignments/week-1")
    rep.check("a student's own status per problem", st == 200 and mine["mine"]["softmax-stable"]
              ["score"] == 80 and mine["mine"]["layernorm"]["counted"] is False,
              json.dumps(mine)[:400])
    st, lst, _ = students["ben"].call("GET", "/api/assignments")
    rep.check("a student's list: only the open assignment", st == 200
              and [x["slug"] for x in lst["assignments"]] == ["week-1"], json.dumps(lst)[:300])
    st, lst, _ = prof.call("GET", "/api/assignments")
    rep.check("an instructor's list: both", st == 200 and sorted(
        x["slug"] for x in lst["assignments"]) == ["week-1", "week-9"])
    expect(rep, "a student reads an assignment not open yet",
           students["ben"].call("GET", "/api/assignments/week-9"), 404, "not_found")
    for path in ["/api/assignments/week-1/grades", "/api/assignments/week-1/grades.csv",
                 "/api/users"]:
        expect(rep, "a student: GET " + path, students["ben"].call("GET", path), 403, "forbidden")
        expect(rep, "anonymous: GET " + path, anon.call("GET", path), 401, "unauthorized")
    expect(rep, "a student imports a class list", students["ben"].call(
        "POST", "/api/users/import", {"csv": CLASS_LIST}), 403, "forbidden")
    expect(rep, "a student sets a display name", students["ben"].call(
        "PATCH", "/api/users/ben", {"display_name": "Boss"}), 403, "forbidden")
    expect(rep, "grades of an unknown assignment", prof.call(
        "GET", "/api/assignments/nope/grades.csv"), 404, "not_found")

    # --- a draft problem is not shown to students in an assignment ---
    prof.call("PATCH", "/api/problems/layernorm", {"state": "draft"})
    st, a1, _ = students["ben"].call("GET", "/api/assignments/week-1")
    rep.check("a draft problem is left out of a student's view", st == 200
              and [p["slug"] for p in a1["problems"]] == ["softmax-stable", "split-merge-heads"]
              and "layernorm" not in a1["mine"], json.dumps(a1)[:300])
    prof.call("PATCH", "/api/problems/layernorm", {"state": "published"})

    # --- PUT and DELETE ---
    st, got, _ = prof.call("PUT", "/api/assignments/week-9", dict(future, slug="week-10",
                                                                   problems=["layernorm"]))
    rep.check("PUT renames and replaces the problems", st == 200 and got["slug"] == "week-10"
              and [p["slug"] for p in got["problems"]] == ["layernorm"], json.dumps(got)[:300])
    expect(rep, "PUT onto another assignment's slug", prof.call(
        "PUT", "/api/assignments/week-10", dict(future, slug="week-1")), 409, "assignment_exists")
    expect(rep, "PUT an unknown assignment", prof.call(
        "PUT", "/api/assignments/nope", future), 404, "not_found")
    expect(rep, "a student deletes one", students["ben"].call(
        "DELETE", "/api/assignments/week-10"), 403, "forbidden")
    expect(rep, "DELETE", prof.call("DELETE", "/api/assignments/week-10"), 204)
    expect(rep, "DELETE again", prof.call("DELETE", "/api/assignments/week-10"), 404, "not_found")


def main():
    return run_scenario(sys.argv[1], "assignments", run, problems=problems_dir, workers=2, conf={"user_queue_max": 10})


if __name__ == "__main__":
    sys.exit(main())
