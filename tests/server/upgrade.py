"""The upgrade of a real course's database (issue 11): upgrade-fixture/
db-v4.sql is the database that attnjudge at commit ca233d9 (schema
version 4) made for a small course (make-db-v4.py says how). The server of
this tree starts on it, migrates it in place, and everything of the old
course is still there and works with the new features:

- the schema reaches the latest version, and no row is lost;
- every old account signs in with its old password, with no password
  change pending and no student id or display name;
- old submissions read back with their verdicts, the leaderboard and the
  grades export still have them, hint openings and the walkthrough date
  survived;
- the old problems are published (they were visible to everyone), and the
  new features act on them: a draft is 404 to students, a problem with
  submissions cannot be deleted; a new submission is judged.

    python3 tests/server/upgrade.py BUILD_DIR/attnjudge
"""
import json
import os
import sqlite3
import sys
import tarfile

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, run_scenario, source, wait_until  # noqa: E402

FIXTURE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "upgrade-fixture")
FIXTURE = os.path.join(FIXTURE_DIR, "db-v4.sql")
# The packages as they were when the database was made (with their
# reference.c), frozen in an archive: the course's problems directory did
# not change with the upgrade, so nothing is imported again and the old
# versions stay current, whatever this tree's packages have become since.
FIXTURE_PACKAGES = os.path.join(FIXTURE_DIR, "packages.tar.gz")


def unpack_packages(dest):
    """The fixture's packages as dest/<slug>/ (dest must not exist)."""
    tmp = dest + ".unpack"
    # our own archive; the "data" filter where this Python has it
    safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
    with tarfile.open(FIXTURE_PACKAGES) as tar:
        tar.extractall(tmp, **safe)
    os.rename(os.path.join(tmp, "problems"), dest)
    os.rmdir(tmp)
SLUGS = ("softmax-stable", "layernorm")


def restore(srv):
    """The fixture as the server's database, and the problem version
    directories it refers to (data/problems/v1/<slug>)."""
    os.makedirs(srv.data, exist_ok=True)
    con = sqlite3.connect(os.path.join(srv.data, "attnjudge.db"))
    con.executescript(open(FIXTURE, encoding="utf-8").read())
    con.close()
    unpack_packages(os.path.join(srv.data, "problems", "v1"))


def problems_dir(tmp):
    root = os.path.join(tmp, "problems")
    unpack_packages(root)
    return root


def run(srv, rep, before):
    latest = srv.db("SELECT max(version) FROM schema_version")[0][0]
    rep.check("the schema is migrated past version 4 (now %d)" % latest, latest > 4)
    for table, n in before.items():
        got = srv.db("SELECT count(*) FROM %s" % table)[0][0]
        rep.check("no row of %s lost (%d)" % (table, n), got == n, "%d now" % got)
    users = {}
    for name in ("prof", "alice", "bob", "carol"):
        c = srv.client()
        try:
            c.sign_in(name, name + "-password")
            users[name] = c
            rep.check("%s signs in with the old password" % name, True)
        except RuntimeError as e:
            rep.check("%s signs in with the old password" % name, False, str(e))
            return
        st, me, _ = c.call("GET", "/api/me")
        rep.check("%s: no password change pending" % name, st == 200
                  and not me.get("must_change_password"), json.dumps(me))
    anon = srv.client()
    st, body, _ = anon.call("GET", "/api/problems")
    states = {p["slug"]: p["state"] for p in body.get("problems", [])}
    rep.check("the old problems are published and listed to everyone",
              all(states.get(s) == "published" for s in SLUGS), json.dumps(states))
    subs = srv.db("SELECT s.id, u.username, s.verdict FROM submissions s"
                  " JOIN users u ON u.id = s.user_id ORDER BY s.id")
    want = {"alice": "accepted", "bob": "wrong_answer", "carol": "accepted"}
    for sid, user, verdict in subs:
        st, body, _ = users[user].call("GET", "/api/submissions/%d" % sid)
        rep.check("%s's old submission %d reads back as %s" % (user, sid, want[user]),
                  st == 200 and body["verdict"] == want[user] == verdict, json.dumps(body)[:200])
    st, body, _ = anon.call("GET", "/api/leaderboard/softmax-stable")
    rep.check("the leaderboard still has alice", st == 200 and [e.get("user") for e in
                                                              body.get("entries", [])]
              == ["alice"], json.dumps(body)[:300])
    st, body, _ = users["bob"].call("GET", "/api/problems/softmax-stable")
    rep.check("bob's two opened hints survived", st == 200 and
              [o["n"] for o in body["hints"]["opened"]] == [1, 2], json.dumps(body.get("hints")))
    st, body, _ = users["prof"].call("GET", "/api/problems/layernorm")
    rep.check("the walkthrough date survived", st == 200 and body["walkthrough"]["opens_at"]
              == "2030-01-01T00:00:00.000Z", json.dumps(body.get("walkthrough")))
    r, raw = users["prof"].exchange("GET", "/api/grades.csv",
                                    headers={"Authorization": "Bearer " + users["prof"].token})
    csv = raw.decode()
    rep.check("the grades export still has the old scores", r.status == 200
              and "alice,softmax-stable,1" in csv and "carol,layernorm,1" in csv, csv[:300])

    # The new features on the old data.
    st, body, _ = users["prof"].call("PATCH", "/api/problems/layernorm", {"state": "draft"})
    rep.check("PATCH an old problem to draft", st == 200 and body["state"] == "draft")
    st, _, _ = users["carol"].call("GET", "/api/problems/layernorm")
    rep.check("... a student gets 404", st == 404)
    carol_sub = [sid for sid, u, _ in subs if u == "carol"][0]
    st, _, _ = users["carol"].call("GET", "/api/submissions/%d" % carol_sub)
    rep.check("... and still reads her own old submission", st == 200)
    st, body, _ = users["prof"].call("DELETE", "/api/problems/softmax-stable")
    rep.check("an old problem with submissions cannot be deleted (409 has_submissions)",
              st == 409 and body["error"]["code"] == "has_submissions")
    st, body, _ = users["alice"].submit(
        "softmax-stable", source("tests/submissions/softmax-stable/accepted/plain_float.c"))
    rep.check("a new submission on the old database is queued", st == 202, json.dumps(body))
    if st == 202:
        sid = body["id"]
        done = wait_until(lambda: users["alice"].call("GET", "/api/submissions/%d" % sid)[1]
                          if users["alice"].call("GET", "/api/submissions/%d" % sid)[1]["status"]
                          == "done" else None, 120, 0.2)
        rep.check("... and judged accepted", done and done["verdict"] == "accepted",
                  json.dumps(done)[:200])


def main():
    before = {}

    def prepare(srv):
        restore(srv)
        before.update({t: srv.db("SELECT count(*) FROM %s" % t)[0][0]
                       for t in ("users", "problems", "problem_versions", "submissions",
                                 "hint_opens", "walkthrough_dates")})

    def check(srv, rep):
        rep.check("the fixture was schema version 4", before.get("schema") == 4)
        run(srv, rep, {k: v for k, v in before.items() if k != "schema"})

    def prepare_and_version(srv):
        prepare(srv)
        before["schema"] = srv.db("SELECT max(version) FROM schema_version")[0][0]

    return run_scenario(sys.argv[1], "upgrade", check, problems=problems_dir,
                        before_start=prepare_and_version, instructor=False)


if __name__ == "__main__":
    sys.exit(main())
