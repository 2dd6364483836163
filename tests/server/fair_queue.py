"""The fair queue (issue 7, item 3) through a real server:

- one user queues ten submissions that sleep in every test; another user's
  correct submission, queued after them, is claimed before the sleepers'
  later ones and judged within seconds (the figure is printed);
- beyond user_queue_max a user gets 429 too_many_pending with Retry-After;
- a queued submission shows its position and, once a mean judging time is
  known, an estimate; its author can cancel it while queued (not once
  judging; not someone else's);
- nothing is lost or judged twice.

The sleepers run against an uploaded copy of mha-fused-qkv with three tests
and a 500 ms wall-clock limit, so each holds a worker about two seconds
whatever the judge does after a test's time_limit.

    python3 tests/server/fair_queue.py BUILD_DIR/attnjudge
"""
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, Report, Server, source, wait_until  # noqa: E402

SLUG = "fair-short"
BASE = "mha-fused-qkv"
N_SLEEPERS = 10


def short_package():
    """mha-fused-qkv with three tests and tight limits, as an upload."""
    pj = json.load(open(os.path.join(ROOT, "problems", BASE, "problem.json")))
    pj["slug"] = SLUG
    pj["title"] = "Fair-queue test problem"
    pj["prerequisites"] = []
    pj["limits"] = {"cpu_ms": 400, "wall_ms": 500, "memory_mb": 256}
    pj["tests"] = pj["tests"][:3]
    pj.pop("mistakes", None)  # not what this test is about
    return {
        "problem_json": json.dumps(pj),
        "statement_md": source("problems/%s/statement.md" % BASE),
        "starter_c": source("problems/%s/starter.c" % BASE),
        "reference_c": source("reference/%s.c" % BASE),
        "state": "published",  # students submit to it (an upload is a draft by default)
    }


def main():
    binary = sys.argv[1]
    rep = Report()
    tmp = tempfile.mkdtemp(prefix="attnjudge-fairq.")
    # a server started as root runs as run_as, which must reach its data
    # directory by name (docs/operations.md)
    os.chmod(tmp, 0o711)
    srv = Server(binary, tmp, "fair", {"user_queue_max": N_SLEEPERS})
    try:
        srv.add_user("prof", "prof-password", "instructor")
        srv.start()
        run(srv, rep)
    except Exception as e:  # noqa: BLE001 - a crash of the test is one failure
        rep.check("fair queue scenario ran to the end", False, repr(e))
    finally:
        srv.stop()
        if rep.failed:
            print("--- server log:\n" + srv.log_tail(30))
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()


def run(srv, rep):
    prof = srv.client()
    prof.sign_in("prof", "prof-password")
    st, body, _ = prof.call("POST", "/api/problems", short_package())
    if not rep.check("upload the short-limit problem", st == 201, "%d %s" % (st, body)):
        return
    sleeper, quick, other = srv.client(), srv.client(), srv.client()
    sleeper.sign_up("sleeper")
    quick.sign_up("quick")
    other.sign_up("other")
    sleep_src = source("tests/attacks/sleep_forever.c")
    good_src = source("tests/submissions/%s/accepted/plain_float.c" % BASE)

    sleepers = []
    for _ in range(N_SLEEPERS):
        st, body, _ = sleeper.submit(SLUG, sleep_src)
        if st == 202:
            sleepers.append(body["id"])
    rep.check("the sleeper queues %d submissions (user_queue_max = %d)" % (N_SLEEPERS, N_SLEEPERS),
              len(sleepers) == N_SLEEPERS)
    st, body, r = sleeper.submit(SLUG, sleep_src)
    code = body and body.get("error", {}).get("code")
    msg = body and body.get("error", {}).get("message", "")
    rep.check("one more is 429 too_many_pending with Retry-After and a message",
              st == 429 and code == "too_many_pending" and r.getheader("Retry-After")
              and str(N_SLEEPERS) in msg, "%d %s" % (st, body))

    t0 = time.time()
    st, body, _ = quick.submit(SLUG, good_src)
    quick_id = body["id"] if st == 202 else None
    if not rep.check("another user submits a correct solution", quick_id is not None):
        return
    # one snapshot of the whole queue, as the instructor sees it
    st, lst, _ = prof.call("GET", "/api/submissions?status=queued&limit=500")
    pos = {s["id"]: s["queue_position"] for s in lst["submissions"]}
    theirs = sorted(p for i, p in pos.items() if i in sleepers)
    if quick_id in pos:
        rep.check("it is next in the queue (queue_position 1) although %d were queued before"
                  % len(theirs), pos[quick_id] == 1, "positions %s" % pos)
    else:
        rep.check("it was claimed at once", True)
    rep.check("the sleeper's queued submissions come after it (positions %s)" % theirs,
              len(theirs) >= 1 and theirs == list(range(len(pos) - len(theirs) + 1, len(pos) + 1)))
    st, sub, _ = quick.call("GET", "/api/submissions/%d" % quick_id)
    rep.check("GET of one submission carries queue_position and queue_estimate_s",
              "queue_position" in sub and "queue_estimate_s" in sub, str(sub.keys()))

    # cancel: not someone else's, not a judging one; a queued one, once
    last = sleepers[-1]
    st, body, _ = other.call("POST", "/api/submissions/%d/cancel" % last, {})
    rep.check("another student cannot cancel it (404)", st == 404, "%d %s" % (st, body))
    judging = wait_until(lambda: [s for s in sleepers if srv.db(
        "SELECT status FROM submissions WHERE id = ?", (s,))[0][0] == "judging"], 10)
    if judging:
        st, body, _ = sleeper.call("POST", "/api/submissions/%d/cancel" % judging[0], {})
        rep.check("a judging submission cannot be cancelled (409 not_queued)",
                  st == 409 and body["error"]["code"] == "not_queued", "%d %s" % (st, body))
    st, body, _ = sleeper.call("POST", "/api/submissions/%d/cancel" % last, {})
    rep.check("its author cancels a queued one (200 cancelled)",
              st == 200 and body == {"id": last, "status": "cancelled"}, "%d %s" % (st, body))
    st, body, _ = sleeper.call("POST", "/api/submissions/%d/cancel" % last, {})
    rep.check("cancelling twice is 409", st == 409, "%d %s" % (st, body))
    st, sub, _ = sleeper.call("GET", "/api/submissions/%d" % last)
    rep.check("a cancelled submission has status cancelled and no verdict",
              sub["status"] == "cancelled" and sub["verdict"] is None and sub["queue_position"] is None)

    def quick_done():
        st, sub, _ = quick.call("GET", "/api/submissions/%d" % quick_id)
        return sub if sub["status"] == "done" else None

    sub = wait_until(quick_done, 120, 0.05)
    elapsed = time.time() - t0
    rep.check("the correct submission is accepted (%s)" % (sub and sub["verdict"]),
              sub is not None and sub["verdict"] == "accepted")
    print("figure: submit-to-verdict of the other user's submission behind %d sleepers: %.2f s"
          % (N_SLEEPERS, elapsed), flush=True)
    # with a mean judging time known, a queued submission has an estimate
    def estimate_seen():
        st, lst, _ = sleeper.call("GET", "/api/submissions?status=queued")
        subs = lst["submissions"]
        if not subs:
            return "none queued"
        return subs if all(isinstance(s["queue_estimate_s"], int) and s["queue_estimate_s"] > 0
                           for s in subs) else None

    seen = wait_until(estimate_seen, 20)
    rep.check("queued submissions carry an estimate in seconds (%s)"
              % ([s["queue_estimate_s"] for s in seen] if isinstance(seen, list) else seen),
              isinstance(seen, list))

    ok = wait_until(lambda: srv.db(
        "SELECT count(*) FROM submissions WHERE status IN ('queued', 'judging')")[0][0] == 0, 120)
    rep.check("every submission is judged or cancelled in the end", ok)
    started = dict(srv.db("SELECT id, started_at FROM submissions WHERE started_at IS NOT NULL"))
    later = [s for s in sleepers[2:-1] if s in started]
    rep.check("it was claimed before every sleeper after the first two (round-robin, not FIFO)",
              quick_id in started and all(started[quick_id] <= started[s] for s in later)
              and len(later) == N_SLEEPERS - 3,
              "quick %s, sleepers %s" % (started.get(quick_id), [started.get(s) for s in sleepers]))

    rows = srv.db("SELECT id, status, verdict, judgements FROM submissions WHERE id IN (%s)"
                  % ",".join(str(i) for i in sleepers + [quick_id]))
    by_id = {r[0]: r[1:] for r in rows}
    rep.check("nothing lost: %d rows for %d acknowledged submissions" % (len(rows), len(sleepers) + 1),
              len(rows) == len(sleepers) + 1)
    rep.check("every sleeper is time_limit, judged exactly once; the cancelled one never",
              all(by_id[s] == ("done", "time_limit", 1) for s in sleepers[:-1])
              and by_id[last] == ("cancelled", None, 0) and by_id[quick_id] == ("done", "accepted", 1),
              str(by_id))
    rep.check("no internal_error", srv.db(
        "SELECT count(*) FROM submissions WHERE verdict = 'internal_error'")[0][0] == 0)


if __name__ == "__main__":
    sys.exit(main())
