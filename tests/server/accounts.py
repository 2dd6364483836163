"""Passwords (issue 11, item 4) through a real server:

- an instructor resets a student's password (POST /api/users/{name}/password):
  a one-time password comes back once, the student's sessions end (401),
  the old password no longer signs in, the new one does and must be
  changed: every route but GET /api/me, sign-out and the change is 403
  password_change_required;
- the change (POST /api/users/me/password): wrong old password 401
  bad_credentials (counted with failed sign-ins: 429 after the burst),
  weak 400, same as before 400 same_password, bad bodies 400; success ends
  the other sessions and keeps this one;
- `attnjudge user passwd NAME` on a running server does the same from the
  host;
- authorization: a student resetting is 403 forbidden, anonymous 401, an
  unknown user 404, a bad name 400, one's own account 400; the name "me"
  cannot be registered;
- the test servers' password_hash_limits = minimum reaches a sign-up and
  `attnjudge user add`, and the log says so.

    python3 tests/server/accounts.py BUILD_DIR/attnjudge
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, expect, run_scenario  # noqa: E402


def problems_dir(tmp):
    root = os.path.join(tmp, "problems")
    shutil.copytree(os.path.join(ROOT, "problems", "softmax-stable"),
                    os.path.join(root, "softmax-stable"))
    return root


def signs_in(srv, name, password):
    st, body, _ = srv.client().call("POST", "/api/sessions",
                                    {"username": name, "password": password})
    return st == 200, body


def run(srv, rep):
    anon, prof = srv.client(), srv.client()
    prof.sign_in("prof", "prof-password")
    alice_lab, alice_home = srv.client(), srv.client()
    alice_lab.sign_up("alice", "alice-password")
    alice_home.sign_in("alice", "alice-password")
    bob = srv.client()
    bob.sign_up("bob", "bob-password")

    # --- the test servers' password_hash_limits = minimum (serverlib.py) ---
    hashes = dict(srv.db("SELECT username, pwhash FROM users WHERE username IN ('alice', 'prof')"))
    rep.check("password_hash_limits = minimum: a sign-up's hash has the least cost",
              hashes.get("alice", "").startswith("$argon2id$v=19$m=8,t=1,p=1$"), str(hashes))
    rep.check("... and so has `attnjudge user add --config` of the same file",
              hashes.get("prof", "").startswith("$argon2id$v=19$m=8,t=1,p=1$"), str(hashes))
    rep.check("... which the server's log names at start, for test servers only",
              "password_hash_limits = minimum" in srv.log() and "test servers only" in srv.log(),
              srv.log_tail(5))

    # --- reset: authorization and bad input ---
    expect(rep, "a student resets a password", bob.call("POST", "/api/users/alice/password", {}),
           403, "forbidden")
    expect(rep, "an anonymous caller resets a password",
           anon.call("POST", "/api/users/alice/password", {}), 401, "unauthorized")
    expect(rep, "reset of an unknown user", prof.call("POST", "/api/users/nobody/password", {}),
           404, "not_found")
    expect(rep, "reset of a bad name", prof.call("POST", "/api/users/-x/password", {}), 400,
           "invalid_username")
    expect(rep, "reset of one's own account", prof.call("POST", "/api/users/prof/password", {}),
           400, "invalid_request")
    expect(rep, "reset with a field", prof.call("POST", "/api/users/alice/password",
                                                {"password": "x"}), 400, "invalid_request")
    expect(rep, "registering the name 'me'", anon.call(
        "POST", "/api/users", {"username": "ME", "password": "me-password"}), 400,
        "invalid_username")

    # --- reset ---
    st, body, _ = prof.call("POST", "/api/users/alice/password", {})
    rep.check("reset: 200 with a one-time password", st == 200 and body["username"] == "alice"
              and len(body.get("temporary_password", "")) >= 12
              and body["must_change_password"] is True and body["sessions_ended"] == 2,
              json.dumps(body))
    temp = body.get("temporary_password", "")
    expect(rep, "reset: alice's lab session ended", alice_lab.call("GET", "/api/me"), 401,
           "unauthorized")
    expect(rep, "reset: alice's home session ended", alice_home.call("GET", "/api/me"), 401,
           "unauthorized")
    rep.check("reset: the old password no longer signs in",
              not signs_in(srv, "alice", "alice-password")[0])
    ok, body = signs_in(srv, "alice", temp)
    rep.check("reset: the one-time password signs in, saying it must be changed",
              ok and body["user"]["must_change_password"] is True, json.dumps(body))
    alice = srv.client()
    alice.sign_in("alice", temp)
    st, me, _ = alice.call("GET", "/api/me")
    rep.check("must change: GET /api/me works and says so", st == 200
              and me["must_change_password"] is True, json.dumps(me))
    for method, path, body in [("GET", "/api/submissions", None),
                               ("GET", "/api/problems", None),
                               ("POST", "/api/submissions", {"problem": "softmax-stable",
                                                             "source": "int x;"}),
                               ("POST", "/api/runs", {"problem": "softmax-stable",
                                                      "source": "int x;"})]:
        expect(rep, "must change: %s %s" % (method, path), alice.call(method, path, body), 403,
               "password_change_required")

    # --- change: bad input ---
    chg = "/api/users/me/password"
    expect(rep, "change: wrong old password", alice.call(
        "POST", chg, {"old_password": "wrong-one!", "new_password": "alice-new-pw"}), 401,
        "bad_credentials")
    expect(rep, "change: weak new password", alice.call(
        "POST", chg, {"old_password": temp, "new_password": "short"}), 400, "weak_password")
    expect(rep, "change: same password", alice.call(
        "POST", chg, {"old_password": temp, "new_password": temp}), 400, "same_password")
    expect(rep, "change: missing field", alice.call("POST", chg, {"old_password": temp}), 400,
           "invalid_request")
    expect(rep, "change: a number", alice.call("POST", chg, {"old_password": temp,
                                                             "new_password": 12345678}), 400,
           "invalid_request")
    expect(rep, "change: anonymous", anon.call("POST", chg, {"old_password": "a" * 8,
                                                             "new_password": "b" * 8}), 401,
           "unauthorized")

    # --- change ---
    other = srv.client()
    other.sign_in("alice", temp)
    st, body, _ = alice.call("POST", chg, {"old_password": temp, "new_password": "alice-new-pw"})
    rep.check("change: 200, the other sessions ended", st == 200
              and body["must_change_password"] is False and body["sessions_ended"] == 2,
              json.dumps(body))
    st, me, _ = alice.call("GET", "/api/me")
    rep.check("change: this session goes on, no change pending", st == 200
              and me["must_change_password"] is False, json.dumps(me))
    expect(rep, "change: the routes open again", alice.call("GET", "/api/submissions"), 200)
    expect(rep, "change: the other session is 401", other.call("GET", "/api/me"), 401,
           "unauthorized")
    rep.check("change: the one-time password is gone", not signs_in(srv, "alice", temp)[0])
    rep.check("change: the new password signs in", signs_in(srv, "alice", "alice-new-pw")[0])

    # --- wrong old passwords count as failed sign-ins (burst 6 here) ---
    codes = [bob.call("POST", chg, {"old_password": "guess-%d-pw" % i,
                                    "new_password": "bob-new-password"})[0] for i in range(8)]
    rep.check("change: guessing the old password is rate limited (401s, then 429)",
              codes[:6] == [401] * 6 and codes[6:] == [429, 429], repr(codes))

    # --- attnjudge user passwd on a running server ---
    carol = srv.client()
    carol.sign_up("carol", "carol-password")
    out = subprocess.run([srv.binary, "user", "passwd", "carol", "--data", srv.data,
                          "--config", os.path.join(srv.dir, "serve.conf")],
                         capture_output=True, text=True, timeout=60)
    line = [x for x in out.stdout.splitlines() if "one-time password" in x]
    rep.check("user passwd: prints a one-time password and the sessions ended",
              out.returncode == 0 and line and "1 session ended" in out.stdout, out.stdout)
    temp = line[0].rsplit(": ", 1)[1] if line else ""
    expect(rep, "user passwd: carol's session ended", carol.call("GET", "/api/me"), 401,
           "unauthorized")
    ok, body = signs_in(srv, "carol", temp)
    rep.check("user passwd: the new password signs in and must be changed",
              ok and body["user"]["must_change_password"] is True, json.dumps(body))
    out = subprocess.run([srv.binary, "user", "passwd", "carol", "--data", srv.data,
                          "--config", os.path.join(srv.dir, "serve.conf"),
                          "--password-stdin"], input="carol-chosen-pw\n", capture_output=True,
                         text=True, timeout=60)
    ok, body = signs_in(srv, "carol", "carol-chosen-pw")
    rep.check("user passwd --password-stdin: no change required", out.returncode == 0 and ok
              and body["user"]["must_change_password"] is False, out.stdout + json.dumps(body))


def main():
    return run_scenario(sys.argv[1], "accounts", run, problems=problems_dir, workers=1, conf={"account_fail_burst": 6})


if __name__ == "__main__":
    sys.exit(main())
