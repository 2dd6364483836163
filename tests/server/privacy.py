"""Privacy (issue 11, item 8), through two real servers:

- leaderboard_names = display_name (the default): students and visitors see
  display names where set, else usernames; instructors see both; the
  caller's own row says "you";
- leaderboard_names = anonymous with course_visibility = private: nobody's
  name on the leaderboard (students see ranks and their own row), and an
  anonymous caller gets 401 everywhere but sign-in, sign-up, the
  vocabulary (which says "private") and the operators' endpoints.

    python3 tests/server/privacy.py BUILD_DIR/attnjudge
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, Report, Server, source, wait_until  # noqa: E402

SLUG = "softmax-stable"
GOOD = source("tests/submissions/%s/accepted/plain_float.c" % SLUG)


def problems_dir(tmp):
    root = os.path.join(tmp, "problems")
    shutil.copytree(os.path.join(ROOT, "problems", SLUG), os.path.join(root, SLUG))
    return root


def solve(client):
    """Submits an accepted solution; returns its id once judged (else 0)."""
    st, body, _ = client.submit(SLUG, GOOD)
    sid = body["id"]
    done = wait_until(lambda: client.call("GET", "/api/submissions/%d" % sid)[1]["status"]
                      == "done", 120, 0.2)
    return sid if done else 0


def board(client):
    st, body, _ = client.call("GET", "/api/leaderboard/" + SLUG)
    return st, body.get("entries", []) if body else []


def with_server(binary, tmp, name, conf, fn, rep):
    srv = Server(binary, tmp, name, workers=1, problems=problems_dir(os.path.join(tmp, name)),
                 conf=conf)
    try:
        srv.add_user("prof", "prof-password", "instructor")
        srv.start()
        fn(srv, rep)
    except Exception as e:  # noqa: BLE001 - a crash of the test is one failure
        rep.check("%s scenario ran to the end" % name, False, repr(e))
    finally:
        srv.stop()
        if rep.failed:
            print("--- server log:\n" + srv.log_tail(20))


def named(srv, rep):
    anon, prof, alice, bob = srv.client(), srv.client(), srv.client(), srv.client()
    prof.sign_in("prof", "prof-password")
    alice.sign_up("alice")
    bob.sign_up("bob")
    prof.call("PATCH", "/api/users/alice", {"display_name": "Alice L."})
    a_id, b_id = solve(alice), solve(bob)
    rep.check("alice and bob solve it", a_id and b_id)
    st, e = board(anon)
    by_id = {x["submission_id"]: x for x in e}
    rep.check("visitors: display names where set, else usernames", st == 200
              and by_id[a_id]["user"] == "Alice L." and by_id[b_id]["user"] == "bob"
              and all("display_name" not in x and "you" not in x for x in e), json.dumps(e))
    st, e = board(alice)
    rep.check("alice's own row says you", st == 200
              and [x["submission_id"] for x in e if x.get("you")] == [a_id], json.dumps(e))
    st, e = board(prof)
    by_id = {x["submission_id"]: x for x in e}
    rep.check("instructors: usernames and display names", st == 200
              and (by_id[a_id]["user"], by_id[a_id]["display_name"]) == ("alice", "Alice L.")
              and (by_id[b_id]["user"], by_id[b_id]["display_name"]) == ("bob", None),
              json.dumps(e))


def private(srv, rep):
    anon, prof, alice, bob = srv.client(), srv.client(), srv.client(), srv.client()
    prof.sign_in("prof", "prof-password")
    alice.sign_up("alice")
    bob.sign_up("bob")
    rep.check("signed up and signed in on a private course", alice.token and bob.token)
    a_id, b_id = solve(alice), solve(bob)
    rep.check("alice and bob solve it", a_id and b_id)
    for path in ["/api/problems", "/api/problems/" + SLUG, "/api/leaderboard/" + SLUG,
                 "/api/problems/%s/samples" % SLUG, "/api/assignments"]:
        st, body, _ = anon.call("GET", path)
        rep.check("private: anonymous GET %s is 401" % path, st == 401
                  and body["error"]["code"] == "unauthorized", json.dumps(body)[:200])
    st, body, _ = anon.call("GET", "/api/vocabulary")
    rep.check("private: the vocabulary says so", st == 200
              and body["course_visibility"] == "private")
    st, _, _ = anon.call("GET", "/healthz")
    rep.check("private: /healthz still answers", st == 200)
    st, e = board(bob)
    rep.check("anonymous names: no user on any row, bob's own row marked", st == 200
              and [x["user"] for x in e] == [None, None]
              and [x["submission_id"] for x in e if x.get("you")] == [b_id]
              and all("display_name" not in x for x in e), json.dumps(e))
    st, e = board(prof)
    rep.check("anonymous names: instructors still see usernames", st == 200
              and sorted(x["user"] for x in e) == ["alice", "bob"], json.dumps(e))


def main():
    binary = sys.argv[1]
    rep = Report()
    tmp = tempfile.mkdtemp(prefix="attnjudge-privacy.")
    os.chmod(tmp, 0o711)
    try:
        with_server(binary, tmp, "named", {}, named, rep)
        with_server(binary, tmp, "private", {"leaderboard_names": "anonymous",
                                             "course_visibility": "private"}, private, rep)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()


if __name__ == "__main__":
    sys.exit(main())
