"""attnjudge serve on PostgreSQL through an outage of the database:

- the server runs on a PostgreSQL database (`database = postgresql://...`),
  accounts and submissions work, a submission is judged;
- while the PostgreSQL server is stopped, requests that need the database
  are answered 503 with Retry-After (never 500), and the process stays up;
- once it is started again, the same attnjudge process (not restarted)
  serves them again, and a new submission is judged: its connections
  reconnect by themselves.

    python3 tests/pg/outage.py BUILD_DIR/attnjudge

Needs the environment of tests/pg/pglib.sh's pg_start (PG_URL, PG_DIR,
PG_BIN, PG_OPTS); tests/pg/run.sh runs it. Only the pids it starts are
signalled (serverlib); the PostgreSQL server is stopped and started through
pglib.sh's pg_pause / pg_resume, by its directory.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "server"))
from serverlib import ROOT, run_scenario, source, wait_until  # noqa: E402

SLUG = "softmax-stable"
GOOD = "tests/submissions/%s/accepted/plain_float.c" % SLUG


def pg(action):
    """pg_pause or pg_resume from pglib.sh; True when it worked."""
    r = subprocess.run(["sh", "-c", ". tests/pg/pglib.sh && %s" % action], cwd=ROOT,
                       timeout=120)
    return r.returncode == 0


def verdict(c, sid, limit=120):
    def done():
        st, body, _ = c.call("GET", "/api/submissions/%d" % sid)
        return body if st == 200 and body.get("status") == "done" else None
    return wait_until(done, limit, 0.5)


def run(srv, rep):
    c = srv.client()
    c.sign_up("ann")
    st, body, _ = c.submit(SLUG, source(GOOD))
    rep.check("submission accepted on PostgreSQL", st == 202, "%d %s" % (st, body))
    v = verdict(c, body["id"]) if st == 202 else None
    rep.check("judged on PostgreSQL", bool(v) and v.get("verdict") == "accepted", repr(v))

    rep.check("PostgreSQL stopped", pg("pg_pause"))
    statuses, retry = [], []
    for path in ("/api/submissions", "/api/me", "/api/submissions/1"):
        for _ in range(3):
            st, body, r = c.call("GET", path)
            statuses.append(st)
            retry.append(r.getheader("Retry-After"))
    rep.check("during the outage: 503, never 500", all(s == 503 for s in statuses),
              repr(statuses))
    rep.check("during the outage: Retry-After given", all(retry), repr(retry))
    st, body, r = c.submit(SLUG, source(GOOD))
    rep.check("a submission during the outage: 503", st == 503, "%d %s" % (st, body))
    rep.check("the server is still running", srv.proc.poll() is None)

    rep.check("PostgreSQL started again", pg("pg_resume"))
    back = wait_until(lambda: c.call("GET", "/api/submissions")[0] == 200, 30, 0.5)
    rep.check("after the restart: served again without restarting attnjudge", back)
    statuses = [c.call("GET", "/api/me")[0] for _ in range(20)]
    rep.check("after the restart: every request 200", all(s == 200 for s in statuses),
              repr(statuses))
    st, body, _ = c.submit(SLUG, source(GOOD))
    rep.check("a submission after the restart accepted", st == 202, "%d %s" % (st, body))
    v = verdict(c, body["id"]) if st == 202 else None
    rep.check("and judged (the workers reconnected)",
              bool(v) and v.get("verdict") == "accepted", repr(v))
    c.close()


def main():
    url = os.environ.get("PG_URL")
    if not url:
        print("FAIL outage.py needs PG_URL (tests/pg/run.sh)")
        print("0 passed, 1 failed")
        return 1
    os.environ["ATTNJUDGE_TEST_PG_URL"] = url
    # the server's log, kept past the scenario: a sanitizer build reports
    # at exit (make SANITIZE=... test SUITE=pg)
    fd, log = tempfile.mkstemp(prefix="attnjudge-outage-err.")
    os.close(fd)
    os.environ["ATTNJUDGE_SERVER_ERR"] = log
    status = run_scenario(sys.argv[1], "outage", run, workers=1, instructor=False)
    text = open(log, errors="replace").read()
    os.unlink(log)
    bad = [line for line in text.splitlines() if "Sanitizer" in line or "runtime error" in line]
    if bad:
        print("FAIL the server's log has sanitizer reports:\n" + "\n".join(bad[:20]))
        print("0 passed, 1 failed")
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
