"""Judging capacity with judge hosts (make bench; docs/operations.md,
"Capacity"): judgements per minute of the seed problems' accepted
submissions through a front end that judges nothing (`serve --workers 0`)
with 1 and 2 `attnjudge worker` processes of one thread each, and with one
of two threads.

  python3 tests/server/capacity.py BUILD/attnjudge
  env: CAPACITY_SUBMISSIONS (40 per configuration), CAPACITY_USERS (10)

Prints one line per configuration: judgements per minute, and the p50 and
p99 of submit-to-verdict. Only the pids started here are signalled.
"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import Server, Worker, burst, source, wait_until  # noqa: E402

SEEDS = ["mha-block-postln", "gpt2-attention", "mha-fused-qkv", "mha-cross"]
N = int(os.environ.get("CAPACITY_SUBMISSIONS", "40"))
USERS = int(os.environ.get("CAPACITY_USERS", "10"))
CONFIGS = [("1 host x 1 thread", [1]), ("2 hosts x 1 thread", [1, 1]),
           ("1 host x 2 threads", [2])]


def measure(binary, tmp, label, threads):
    srv = Server(binary, tmp, label.replace(" ", "_"), workers=0,
                 conf={"user_queue_max": 100000, "queue_max": 100000, "lease_s": 10})
    hosts = []
    try:
        srv.start()
        hosts = [Worker(binary, srv, str(i), t) for i, t in enumerate(threads)]
        sources = {s: source("tests/submissions/%s/accepted/plain_float.c" % s) for s in SEEDS}
        ids, _, t0 = burst(lambda k: srv.client(), USERS, lambda k: [
            (SEEDS[j % len(SEEDS)], sources[SEEDS[j % len(SEEDS)]]) for j in range(k, N, USERS)],
            "cap")
        done = wait_until(lambda: srv.db("SELECT count(*) FROM submissions WHERE status = 'done'")
                          [0][0] >= len(ids), 900, 0.2)
        wall = time.time() - t0
        lat = sorted(r[0] - r[1] for r in srv.db(
            "SELECT judged_at, created_at FROM submissions WHERE status = 'done'"))
        wrong = srv.db("SELECT count(*) FROM submissions WHERE verdict != 'accepted'"
                       " OR judgements != 1")[0][0]
        if not done or wrong or len(ids) != N:
            print("capacity: %s: FAILED (%d of %d submitted, %d wrong or judged twice)"
                  % (label, len(ids), N, wrong))
            return None
        per_min = 60.0 * N / wall
        print("capacity: %-20s %5.1f judgements/min  (%d in %.1f s; submit-to-verdict p50 %.1f s,"
              " p99 %.1f s)" % (label, per_min, N, wall, lat[len(lat) // 2] / 1000.0,
                               lat[min(len(lat) - 1, int(len(lat) * 0.99))] / 1000.0),
              flush=True)
        return per_min
    finally:
        for h in hosts:
            h.stop()
        srv.stop()


def main():
    binary = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="attnjudge-capacity.")
    os.chmod(tmp, 0o711)  # a root server runs as run_as, which must reach it
    try:
        print("capacity: %d accepted submissions of the 4 seed problems from %d users, "
              "front end with --workers 0, on %d CPUs" % (N, USERS, os.cpu_count()), flush=True)
        results = [measure(binary, tmp, label, threads) for label, threads in CONFIGS]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
