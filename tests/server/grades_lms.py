"""Course-wide grades for an LMS and class lists as registrars export them,
through a real server:

- GET /api/grades/course.csv: one row per student account (one who never
  submitted included, all zeros), student_id and display_name, a column
  per problem offered to students (a draft's column left out), a total;
  scores to 2 decimals; RFC 4180 quoting and the formula guard;
  instructors only; the long /api/grades.csv unchanged;
- POST /api/users/import with ';' and tab separators and registrar
  headers ("Student ID;Last name;First name;Email", "Matriculation
  number", "Full name", "E-mail", "Login"): the dry run shows the
  separator, the mapping and the derived usernames (e-mail local part,
  else first.last; a numeric suffix for a duplicate); every error names
  its line, column and value;
- U+0085, U+2028 and U+2029 (and a bidi override) refused in display_name
  and student_id on every path that sets them: the import, PATCH
  /api/users/{name}; sign-up takes neither field.

    python3 tests/server/grades_lms.py BUILD_DIR/attnjudge
"""
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import expect, run_scenario, source  # noqa: E402
from assignments import judged, problems_dir, raw_get  # noqa: E402

REGISTRAR = (
    "Student ID;Last name;First name;Email;Programme\n"
    "S001;Archer;Ann;Ann.Archer@uni.example;CS\n"
    "S002;Bennett;Ben;ben@uni.example;CS\n"
    "S003;Jin;Cho;ben@other.example;Maths\n"
    "S004;=Lovelace;Ada;;CS\n")


def set_score(srv, sid, score):
    if srv.conf.get("database", "").startswith("postgres"):  # serverlib's PostgreSQL pass
        srv.db("UPDATE submissions SET score = ? WHERE id = ?", (score, sid))
        return
    con = sqlite3.connect(os.path.join(srv.data, "attnjudge.db"), timeout=30,
                          isolation_level=None)
    con.execute("UPDATE submissions SET score = ? WHERE id = ?", (score, sid))
    con.close()


def errors_of(body):
    return [(e["line"], e.get("column"), e.get("value"), e["message"])
            for e in (body or {}).get("errors", [])]


def class_lists(srv, rep, prof):
    # a registrar's file: ';', headers mapped, usernames derived
    st, body, _ = prof.call("POST", "/api/users/import", {"csv": REGISTRAR, "dry_run": True})
    rep.check("';' list, dry run: 200, separator ';'", st == 200 and body["separator"] == ";",
              json.dumps(body)[:400])
    rep.check("dry run shows the mapping of every column", st == 200 and body["mapping"] == [
        {"column": "Student ID", "field": "student_id"},
        {"column": "Last name", "field": "last_name"},
        {"column": "First name", "field": "first_name"},
        {"column": "Email", "field": "email"},
        {"column": "Programme", "field": None}], json.dumps(body.get("mapping")))
    rows = [(s["line"], s["username"], s["username_derived"], s["username_from"],
             s["student_id"], s["display_name"]) for s in (body or {}).get("students", [])]
    rep.check("derived usernames: e-mail local part, a suffix for a duplicate, first.last "
              "without an e-mail", rows == [
                  (2, "ann.archer", True, "Email", "S001", "Ann Archer"),
                  (3, "ben", True, "Email", "S002", "Ben Bennett"),
                  (4, "ben2", True, "Email", "S003", "Cho Jin"),
                  (5, "ada.lovelace", True, "Last name", "S004", "Ada =Lovelace")], repr(rows))
    rep.check("dry run stores nothing", srv.db(
        "SELECT count(*) FROM users WHERE role = 'student'")[0][0] == 0)

    # errors name line, column and value
    bad = ("Student ID;Last name;First name;Email\n"
           "S001;Archer;Ann;x@\n"
           "S002\u2028;Bennett;Ben;ben@uni.example\n"
           "S003;Jin\u0085;Cho;cho@uni.example\n")
    st, body, _ = prof.call("POST", "/api/users/import", {"csv": bad, "dry_run": True})
    errs = errors_of(body)
    rep.check("a list with errors: 400 invalid_class_list", st == 400
              and body["error"]["code"] == "invalid_class_list", json.dumps(body)[:300])
    rep.check("line 2: column 'Email': 'x@' is not an e-mail address",
              (2, "Email", "x@", "column 'Email': 'x@' is not an e-mail address") in errs,
              repr(errs))
    rep.check("line 3: column 'Student ID' names U+2028",
              any(e[0] == 3 and e[1] == "Student ID" and e[2] == "S002\u2028"
                  and "U+2028" in e[3] for e in errs), repr(errs))
    rep.check("line 4: column 'Last name' names U+0085",
              any(e[0] == 4 and e[1] == "Last name" and "U+0085" in e[3] for e in errs),
              repr(errs))
    rep.check("... and the mapping comes with the errors", (body or {}).get("mapping") and
              body["mapping"][0] == {"column": "Student ID", "field": "student_id"})
    st, body, _ = prof.call("POST", "/api/users/import", {
        "csv": "E-mail,Name\nann@uni.example,Ann\n\u00e9\u00e9@uni.example,\u00c9\u00e9\n"})
    errs = errors_of(body)
    rep.check("line 3: an e-mail and name with nothing of the username alphabet: column "
              "'E-mail' and the value named", st == 400 and len(errs) == 1
              and errs[0][:3] == (3, "E-mail", "\u00e9\u00e9@uni.example")
              and "leaves no username" in errs[0][3], repr(errs))
    st, body, _ = prof.call("POST", "/api/users/import", {
        "csv": "Student ID;Colour\nS1;red\n"})
    rep.check("no column gives a username: 400 saying so", st == 400
              and "no column gives a username" in json.dumps(body), json.dumps(body)[:300])
    st, body, _ = prof.call("POST", "/api/users/import", {
        "csv": "ID;Student ID;Name\n1;2;Ann\n"})
    rep.check("two student id columns: the second named", st == 400 and any(
        e[1] == "Student ID" and "second student_id column" in e[3] for e in errors_of(body)),
        json.dumps(body)[:300])

    # the import itself
    st, body, _ = prof.call("POST", "/api/users/import", {"csv": REGISTRAR})
    temp = {c["username"]: c.get("temporary_password") for c in (body or {}).get("created", [])}
    rep.check("import the ';' list: four accounts with one-time passwords", st == 200
              and sorted(c["username"] for c in body["created"])
              == ["ada.lovelace", "ann.archer", "ben", "ben2"]
              and all(len(c["temporary_password"]) >= 12 for c in body["created"]),
              json.dumps(body)[:300])
    st, body, _ = prof.call("POST", "/api/users/import", {"csv": REGISTRAR})
    rep.check("the same list again: the same four updated (derivation is stable)", st == 200
              and body["created"] == [] and sorted(body["updated"])
              == ["ada.lovelace", "ann.archer", "ben", "ben2"], json.dumps(body)[:300])

    # tab-separated, other header names
    tab = ("Matriculation number\tFull name\tE-mail\tLogin\n"
           "M-77\tDia Diaz\tdia@uni.example\t\n"
           "M-78\tEve Evans\teve@uni.example\teve\n")
    st, body, _ = prof.call("POST", "/api/users/import", {"csv": tab, "dry_run": True})
    rep.check("tab list: separator tab, Matriculation number/Full name/E-mail/Login mapped",
              st == 200 and body["separator"] == "\t" and [m["field"] for m in body["mapping"]]
              == ["student_id", "display_name", "email", "username"], json.dumps(body)[:400])
    rep.check("tab list: an empty Login is derived, a given one kept",
              st == 200 and [(s["username"], s["username_derived"]) for s in body["students"]]
              == [("dia", True), ("eve", False)], json.dumps(body)[:400])
    st, body, _ = prof.call("POST", "/api/users/import", {"csv": tab})
    temp.update({c["username"]: c.get("temporary_password")
                 for c in (body or {}).get("created", [])})
    rep.check("import the tab list", st == 200 and sorted(c["username"] for c in body["created"])
              == ["dia", "eve"], json.dumps(body)[:300])
    st, body, _ = prof.call("POST", "/api/users/import", {
        "csv": "ID,Name,Login\n9,Zed,Bad Name\n"})
    rep.check("a bad given username names column 'Login' and its value", st == 400 and any(
        e[0] == 2 and e[1] == "Login" and e[2] == "Bad Name" for e in errors_of(body)),
        json.dumps(body)[:300])
    st, body, _ = prof.call("POST", "/api/users/import", {
        "csv": "username,student_id,display_name\nann,S001,Ann Archer\n"})
    rep.check("the original header still works", st == 200
              and [c["username"] for c in body["created"]] == ["ann"], json.dumps(body)[:300])
    return temp


def separators(srv, rep, prof):
    for ch, what in [("\u0085", "U+0085"), ("\u2028", "U+2028"), ("\u2029", "U+2029"),
                     ("\u202e", "U+202E"), ("\u0007", "U+0007")]:
        for field in ["display_name", "student_id"]:
            st, body, _ = prof.call("PATCH", "/api/users/dia", {field: "a" + ch + "b"})
            rep.check("PATCH %s with %s: 400 naming it" % (field, what), st == 400
                      and body["error"]["code"] == "invalid_request"
                      and what in body["error"]["message"], json.dumps(body))
        csv = "username,student_id,display_name\nfoo,S%sX,Foo\nbar,S2,Ba%sr\n" % (ch, ch)
        st, body, _ = prof.call("POST", "/api/users/import", {"csv": csv, "dry_run": True})
        errs = errors_of(body)
        rep.check("import with %s in student_id and display_name: both lines refused" % what,
                  st == 400 and [(e[0], e[1]) for e in errs] == [
                      (2, "student_id"), (3, "display_name")]
                  and all(what in e[3] for e in errs), repr(errs))
    st, body, _ = prof.call("PATCH", "/api/users/dia", {"display_name": "Zoë \u200cNāz"})
    rep.check("ZWNJ and accents are allowed in a name", st == 200, json.dumps(body))
    anon = srv.client()
    st, body, _ = anon.call("POST", "/api/users", {"username": "newbie", "password": "pw-123456789",
                                                   "display_name": "x\u2028y"})
    rep.check("sign-up takes no display_name (the class list sets names)", st == 400,
              json.dumps(body))
    st, body, _ = anon.call("POST", "/api/users", {"username": "newbie", "password": "pw-123456789",
                                                   "student_id": "x\u2028y"})
    rep.check("sign-up takes no student_id", st == 400, json.dumps(body))
    rep.check("nothing with a separator was stored", srv.db(
        "SELECT count(*) FROM users WHERE display_name LIKE ? OR student_id LIKE ?",
        ("%\u2028%", "%\u2028%"))[0][0] == 0)


def course_csv(srv, rep, prof, temp):
    students = {}
    for name in ["ann.archer", "ben", "eve"]:
        c = srv.client()
        c.sign_in(name, temp[name])
        st, _, _ = c.call("POST", "/api/users/me/password",
                          {"old_password": temp[name], "new_password": name + "-password"})
        rep.check("%s signs in with the one-time password and chooses one" % name, st == 200)
        students[name] = c
    plan = [("ann.archer", "softmax-stable", "accepted/plain_float.c"),
            ("ann.archer", "split-merge-heads", "wrong_answer/merge_without_transpose.c"),
            ("ben", "layernorm", "accepted/plain_float.c"),
            ("eve", "split-merge-heads", "accepted/reference_loops.c")]
    ids = {}
    for who, slug, rel in plan:
        students[who] = srv.client()  # a fresh connection: judging takes longer than keep-alive
        students[who].sign_in(who, who + "-password")
        st, b, _ = students[who].submit(slug, source("tests/submissions/%s/%s" % (slug, rel)))
        sub = judged(students[who], b["id"]) if st == 202 else None
        rep.check("%s's %s is judged" % (who, slug), sub is not None, json.dumps(b)[:200])
        ids[(who, slug)] = b.get("id")
    prof = srv.client()  # a fresh connection after the judging
    prof.sign_in("prof", "prof-password")
    # a score that needs rounding, as a partly correct submission gets
    set_score(srv, ids[("ann.archer", "split-merge-heads")], 71.4285714286)
    prof.call("PATCH", "/api/users/eve", {"display_name": "@Eve, \"E\" Evans"})
    st, body, _ = prof.call("PATCH", "/api/problems/layernorm", {"state": "draft"})
    rep.check("layernorm becomes a draft", st == 200, json.dumps(body)[:200])
    st, listing, _ = srv.client().call("GET", "/api/problems")
    offered = [p["slug"] for p in listing["problems"]]
    rep.check("students are offered two problems", sorted(offered) == [
        "softmax-stable", "split-merge-heads"], repr(offered))

    st, text, r = raw_get(prof, "/api/grades/course.csv")
    rep.check("course.csv: 200 text/csv, an attachment named course-grades.csv", st == 200
              and r.getheader("Content-Type", "").startswith("text/csv")
              and "course-grades.csv" in r.getheader("Content-Disposition", ""))
    score = {("ann.archer", "softmax-stable"): "100", ("ann.archer", "split-merge-heads"): "71.43",
             ("eve", "split-merge-heads"): "100"}
    names = {"ada.lovelace": ("S004", "Ada =Lovelace"), "ann": ("S001", "Ann Archer"),
             "ann.archer": ("S001", "Ann Archer"), "ben": ("S002", "Ben Bennett"),
             "ben2": ("S003", "Cho Jin"), "dia": ("M-77", "Zoë \u200cNāz"),
             "eve": ("M-78", "\"'@Eve, \"\"E\"\" Evans\"")}
    totals = {"ann.archer": "171.43", "eve": "100"}
    want = "username,student_id,display_name,%s,total\r\n" % ",".join(offered)
    for who in sorted(names):
        want += "%s,%s,%s,%s,%s\r\n" % (who, names[who][0], names[who][1], ",".join(
            score.get((who, p), "0") for p in offered), totals.get(who, "0"))
    rep.check("course.csv: every student (never-submitted ones with zeros), ids, names, a "
              "column per offered problem (not the draft), totals, 2 decimals, quoting and "
              "the formula guard", text == want,
              "\n--- got:\n%s--- want:\n%s" % (text, want))
    print("--- course-grades.csv:\n" + text.replace("\r\n", "\n"), end="")
    st, text, _ = raw_get(prof, "/api/grades.csv")
    rep.check("the long grades.csv is unchanged: student,problem,best_score,time_of_best",
              st == 200 and text.startswith("student,problem,best_score,time_of_best\r\n")
              and "ann.archer,split-merge-heads,71.43," in text, text[:300])
    students["ben"] = srv.client()
    students["ben"].sign_in("ben", "ben-password")
    expect(rep, "a student: GET /api/grades/course.csv",
           students["ben"].call("GET", "/api/grades/course.csv"), 403, "forbidden")
    expect(rep, "anonymous: GET /api/grades/course.csv",
           srv.client().call("GET", "/api/grades/course.csv"), 401, "unauthorized")
    prof.call("PATCH", "/api/problems/layernorm", {"state": "published"})
    st, text, _ = raw_get(prof, "/api/grades/course.csv")
    rep.check("published again: its column is back, with ben's score", st == 200
              and "layernorm" in text.split("\r\n")[0]
              and any(line.startswith("ben,S002,Ben Bennett,") and ",100," in line + ","
                      for line in text.split("\r\n")), text[:400])


def run(srv, rep):
    prof = srv.client()
    prof.sign_in("prof", "prof-password")
    temp = class_lists(srv, rep, prof)
    separators(srv, rep, prof)
    course_csv(srv, rep, prof, temp)


def main():
    return run_scenario(sys.argv[1], "grades_lms", run, problems=problems_dir, workers=2,
                        conf={"user_queue_max": 10})


if __name__ == "__main__":
    sys.exit(main())
