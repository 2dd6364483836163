"""Benchmarks are fair to wait for, through a real server with one worker:

- alice's accepted submissions of seven problems queue their benchmarks
  while the worker still judges her verdicts (a benchmark runs only when no
  verdict waits); her second accepted submission of one problem replaces
  the first one's waiting benchmark, which says "superseded" and names the
  newer one; beyond user_bench_max (6 here) waiting benchmarks her next one
  is "skipped", with a message;
- a waiting benchmark shows its place in the benchmark queue
  (benchmark.queue_position), her waiting ones in the order they will run;
- bob's one accepted submission, judged after all of alice's, is measured
  after at most one of her six (first in, first out would make it the
  seventh), and shows position 1 while it waits; the wait is printed (make
  bench shows it); carol's, judged right after bob's, runs right after it;
- a skipped submission submitted again once the others are measured is
  benchmarked.

Each call of the benchmark size is small, so that each benchmark takes
about a second.

    python3 tests/server/bench_queue.py BUILD_DIR/attnjudge
"""
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, run_scenario, source, submission, wait_until  # noqa: E402

BASE = "softmax-stable"
SLUGS = ["bq%d" % i for i in range(1, 8)]
CAP = 6


def problems_dir(tmp):
    """Seven copies of softmax-stable, each with one small benchmark size."""
    root = os.path.join(tmp, "problems")
    for slug in SLUGS:
        shutil.copytree(os.path.join(ROOT, "problems", BASE), os.path.join(root, slug))
        path = os.path.join(root, slug, "problem.json")
        with open(path, encoding="utf-8") as f:
            pj = json.load(f)
        pj["slug"] = slug
        pj["benchmark"] = {"flops": "5*rows*cols", "bytes": "8*rows*cols",
                           "sizes": [{"name": "r256-c1024", "dims": {"rows": 256, "cols": 1024}}]}
        with open(path, "w", encoding="utf-8") as f:
            json.dump(pj, f, indent=1)
        shutil.copy(os.path.join(ROOT, "reference", BASE + ".c"),
                    os.path.join(root, slug, "reference.c"))
    return root


def bench(cl, sid):
    """(status, queue_position) of submission sid's benchmark; (None, None)
    while it has none or cannot be read."""
    b = submission(cl, sid)
    if not b or not b.get("benchmark"):
        return None, None
    return b["benchmark"]["status"], b["benchmark"].get("queue_position")


def stable(read, tries=20):
    """read() twice in a row with the same answer (no claim in between)."""
    last = read()
    for _ in range(tries):
        now = read()
        if now == last:
            return now
        last = now
    return last


def run(srv, rep):
    alice, bob, carol = srv.client(), srv.client(), srv.client()
    for cl, who in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
        cl.sign_up(who)
    honest = source("tests/submissions/%s/accepted/plain_float.c" % BASE)

    def src(tag):
        # distinct code, not only a distinct comment: the benchmark pool
        # shares one measurement between sources that differ in comments
        # and layout (docs/performance.md), and each must be measured here
        return "const char *bench_queue_tag = \"%s\";\n%s" % (tag, honest)

    # eight submissions at once: one worker judges all eight verdicts before
    # any benchmark can start
    ids = []
    for i, slug in enumerate(SLUGS[:6] + [SLUGS[0], SLUGS[6]]):
        st, body, _ = alice.submit(slug, src("alice %d" % i))
        rep.check("alice's submission %d: 202" % (i + 1), st == 202, json.dumps(body)[:200])
        ids.append(body["id"] if st == 202 else 0)
    s1, mine, again, over = ids[0], ids[1:7], ids[6], ids[7]
    if not all(ids):
        return
    done = wait_until(lambda: all((submission(alice, i) or {}).get("status") == "done"
                                  for i in ids),
                      300, 0.2)
    rep.check("alice's eight verdicts: all accepted", done and all(
        submission(alice, i)["verdict"] == "accepted" for i in ids))

    b = (submission(alice, s1) or {}).get("benchmark") or {}
    rep.check("her first submission of %s: its benchmark superseded by the newer one" % SLUGS[0],
              b.get("status") == "superseded" and b.get("superseded_by") == again
              and "newer" in (b.get("message") or ""), json.dumps(b))
    b = (submission(alice, over) or {}).get("benchmark") or {}
    rep.check("over %d waiting benchmarks: the next one skipped, with a message" % CAP,
              b.get("status") == "skipped" and b.get("waiting") == CAP
              and "waiting" in (b.get("message") or ""), json.dumps(b))

    snap = stable(lambda: [bench(alice, i) for i in mine])
    waiting = [pos for status, pos in snap if status == "pending"]
    rep.check("alice's waiting benchmarks: positions 1, 2, ... in the order they run",
              len(waiting) >= 4 and waiting == list(range(waiting[0], waiting[0] + len(waiting)))
              and waiting[0] == 1
              and all(pos == 0 for status, pos in snap if status == "running"), str(snap))

    # bob's one and carol's one, submitted together after alice's: the worker
    # judges both verdicts before the next benchmark, so bob's waits (with
    # its position) while carol's is judged. Alice's statuses are read before
    # theirs at every step, so at the first step where bob's has started
    # they say how many of hers started before it.
    b1 = c1 = 0
    for cl, who in ((bob, "bob"), (carol, "carol")):
        st, body, _ = cl.submit(SLUGS[0], src(who))
        rep.check("%s submits: 202" % who, st == 202, json.dumps(body)[:200])
        if who == "bob":
            b1 = body["id"] if st == 202 else 0
        else:
            c1 = body["id"] if st == 202 else 0
    queued_at = started_at = None
    positions, ahead, waiting_then, carol_ahead = set(), None, None, None
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and (ahead is None or carol_ahead is None):
        hers = [bench(alice, i)[0] for i in mine]
        status, pos = bench(bob, b1)
        cstatus = bench(carol, c1)[0]
        now = time.monotonic()
        if status == "pending":
            positions.add(pos)
            if queued_at is None:
                queued_at, waiting_then = now, hers.count("pending")
        if status in ("running", "done", "failed") and ahead is None:
            started_at = now
            ahead = sum(1 for h in hers if h in ("running", "done", "failed"))
        if cstatus in ("running", "done", "failed") and carol_ahead is None:
            carol_ahead = sum(1 for h in hers if h in ("running", "done", "failed"))
        time.sleep(0.05)
    # (null: a read between its status and the queue's order raced with the
    # claim that started it; the API says null while the place is unknown)
    rep.check("bob's waiting benchmark: position 1 (next)", positions - {None} == {1},
              str(positions))
    rep.check("while %s of alice's benchmarks wait too" % waiting_then,
              waiting_then is not None and waiting_then >= 3, str(waiting_then))
    rep.check("bob's benchmark starts after at most one of alice's six",
              ahead is not None and ahead <= 1, "alice's started before bob's: %s" % ahead)
    rep.check("so does carol's, right after bob's",
              carol_ahead is not None and carol_ahead == ahead,
              "alice's started before carol's: %s" % carol_ahead)
    if queued_at is not None and started_at is not None:
        print("bench queue: bob's benchmark waited %.1f s (carol's verdict went first) and"
              " started after %d of alice's %d benchmarks, %d of them waiting when it was"
              " queued (first in, first out: after all %d)"
              % (started_at - queued_at, ahead, len(mine), waiting_then, len(mine)))

    settled = wait_until(lambda: all(bench(alice, i)[0] == "done" for i in mine)
                         and bench(bob, b1)[0] == "done" and bench(carol, c1)[0] == "done",
                         300, 0.25)
    rep.check("every benchmark waiting ends done, each once", settled and srv.db(
        "SELECT count(*) FROM submissions WHERE bench_status = 'done' AND bench_claim = 1")[0][0]
        == len(mine) + 2)

    # the cap counts waiting benchmarks only: now there are none
    st, body, _ = alice.submit(SLUGS[6], src("alice again"))
    rep.check("alice submits the skipped problem again: 202", st == 202, json.dumps(body)[:200])
    last = body["id"] if st == 202 else 0
    ok = wait_until(lambda: bench(alice, last)[0] == "done", 120, 0.25)
    rep.check("submitted again once hers are measured: benchmarked", ok, str(bench(alice, last)))


if __name__ == "__main__":
    sys.exit(run_scenario(sys.argv[1], "bench_queue", run, problems=problems_dir, workers=1,
                          instructor=False,
                          conf={"benchmark": "on", "bench_budget_ms": 300,
                                "user_queue_max": 10, "user_bench_max": CAP}))
