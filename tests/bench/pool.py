"""make bench: what pooling and ties change (docs/performance.md, "What
counts"). Six copies of softmax-stable's plain_float.c that differ only in
a comment are each measured, as they were before the pool key: the spread
of their figures is what resubmitting could buy. With the pool they share
one key, one measurement and one figure (tests/server/benchmark.py checks
it through a server). Then the intervals: how many copies' figures fall
inside the first copy's interval, and how many of the 15 pairs of copies
would be shown tied. Printed, never asserted.

    /usr/bin/python3 tests/bench/pool.py BUILD_DIR/attnjudge DATA_DIR [BUDGET_MS]
"""
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile

PROBLEM = "softmax-stable"
COPIES = 6


def interval(bm):
    """bench_spread.h's interval of a report's geometric mean, or None."""
    sizes = bm["sizes"]
    if not sizes or any(s["median_ms"] is None or s["cv"] is None for s in sizes):
        return None
    g = math.exp(sum(math.log(s["median_ms"]) for s in sizes) / len(sizes))
    u = math.sqrt(sum(s["cv"] ** 2 for s in sizes) / len(sizes))
    return g * math.exp(-1.96 * u), g * math.exp(1.96 * u)


def main():
    binary, data = sys.argv[1], sys.argv[2]
    budget = sys.argv[3] if len(sys.argv) > 3 else None
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "tests", "submissions", PROBLEM, "accepted", "plain_float.c"),
              encoding="utf-8") as f:
        text = f.read()
    print("== pooling and ties: %d copies of %s/plain_float.c differing in a comment "
          "(attnjudge judge --bench, one each)" % (COPIES, PROBLEM))
    figures = []
    with tempfile.TemporaryDirectory(prefix="attnjudge-pool.") as tmp:
        for i in range(COPIES):
            src = os.path.join(tmp, "copy%d.c" % i)
            with open(src, "w", encoding="utf-8") as f:
                f.write("/* copy %d */\n" % (i + 1) + text)
            cmd = [binary, "judge", "--problem", PROBLEM, "--json", "--bench", "--data", data]
            if budget:
                cmd += ["--bench-budget", budget]
            p = subprocess.run(cmd + [src], capture_output=True, text=True)
            if p.returncode not in (0, 1):
                sys.exit("pool: %s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr))
            bm = json.loads(p.stdout).get("benchmark") or {}
            iv = interval(bm) if bm.get("geomean_ms") else None
            figures.append((bm.get("geomean_ms"), iv))
            print("copy %d: geomean %s ms, interval %s" % (
                i + 1, "%.2f" % bm["geomean_ms"] if bm.get("geomean_ms") else "none",
                "%.2f-%.2f" % iv if iv else "none"))
    ms = [g for g, _ in figures if g]
    if len(ms) < 2:
        print("fewer than two figures: nothing to compare")
        return
    print("without the pool: %d draws from %.2f to %.2f ms, the best %.1f %% below the worst"
          % (len(ms), min(ms), max(ms), 100 * (1 - min(ms) / max(ms))))
    print("with the pool: one key, one measurement, one figure for all %d (spread 0)" % COPIES)
    first = figures[0][1]
    if first:
        inside = sum(1 for g in ms[1:] if first[0] <= g <= first[1])
        print("copies 2-%d inside copy 1's 95 %% interval: %d of %d"
              % (COPIES, inside, len(ms) - 1))
    ivs = [iv for _, iv in figures if iv]
    pairs = list(itertools.combinations(ivs, 2))
    tied = sum(1 for a, b in pairs if a[0] <= b[1] and b[0] <= a[1])
    print("pairs of copies whose intervals overlap (shown tied): %d of %d" % (tied, len(pairs)))


if __name__ == "__main__":
    main()
