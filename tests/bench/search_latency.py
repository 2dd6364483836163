#!/usr/bin/python3
"""make bench: how much later an accepted verdict arrives because of the
counterexample search at its default budget (printed, never asserted).

    tests/bench/search_latency.py ATTNJUDGE DATA_DIR

Per problem, one accepted corpus file (plain_float.c, or its first one) is
judged with `--no-search` and with the default search, alternately, RUNS
times each, after one judgement of each that fills the caches (the
reference's build and its outputs on the search's families). Printed: the
median wall time of each, their difference ("later"), and the report's own
figures for the search (inputs tried, its milliseconds). Target: "later"
at most 1000 ms for every problem on this machine (issue 24, the default
budget in docs/tolerances.md). A fixed compute loop's CPU time, timed at
the end, shows how busy the machine was.

BENCH_SEARCH_RUNS (3) sets RUNS.
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = int(os.environ.get("BENCH_SEARCH_RUNS", "3"))
TARGET_MS = 1000


def judge(binary, data, slug, src, search):
    cmd = [binary, "judge", "--problem", slug, "--json", "--full", "--data", data,
           "--problems", os.path.join(ROOT, "problems"),
           "--reference", os.path.join(ROOT, "reference")]
    cmd += ([] if search else ["--no-search"]) + [src]
    began = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout
    return (time.monotonic() - began) * 1000, json.loads(out)


def loop_cpu_ms():
    began = time.process_time()
    x = 0
    for i in range(3_000_000):
        x += i
    return (time.process_time() - began) * 1000


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, data = sys.argv[1], sys.argv[2]
    print(f"== the search's delay to an accepted verdict (judge --json --full, with and without "
          f"the default search, median of {RUNS}; target: at most {TARGET_MS} ms later)")
    print(f"{'problem':26} {'file':22} {'no search':>9} {'search':>8} {'later':>7} "
          f"{'inputs':>6} {'search ms':>9}")
    worst = ("", 0.0)
    for pj in sorted(glob.glob(os.path.join(ROOT, "problems", "*", "problem.json"))):
        slug = os.path.basename(os.path.dirname(pj))
        files = sorted(glob.glob(os.path.join(ROOT, "tests", "submissions", slug, "accepted", "*.c")))
        src = ([f for f in files if f.endswith("/plain_float.c")] or files)[0]
        judge(binary, data, slug, src, True)
        judge(binary, data, slug, src, False)
        plain, searched, inputs, search_ms, verdicts = [], [], [], [], set()
        for _ in range(RUNS):
            ms, r = judge(binary, data, slug, src, False)
            plain.append(ms)
            verdicts.add(r["verdict"])
            ms, r = judge(binary, data, slug, src, True)
            searched.append(ms)
            verdicts.add(r["verdict"])
            s = r.get("search") or {}
            inputs.append(s.get("inputs", 0))
            search_ms.append(s.get("ms", 0))
        a, b = statistics.median(plain), statistics.median(searched)
        if b - a > worst[1]:
            worst = (slug, b - a)
        note = "" if verdicts == {"accepted"} else f"  verdicts {sorted(verdicts)}"
        print(f"{slug:26} {os.path.basename(src):22} {a:9.0f} {b:8.0f} {b - a:7.0f} "
              f"{statistics.median(inputs):6.0f} {statistics.median(search_ms):9.0f}{note}")
    loops = [loop_cpu_ms() for _ in range(5)]
    print(f"largest delay {worst[1]:.0f} ms ({worst[0]}): "
          f"{'ok' if worst[1] <= TARGET_MS else 'ABOVE the target'}; a fixed loop's CPU time "
          f"{statistics.median(loops):.0f} ms (min {min(loops):.0f}, max {max(loops):.0f}); "
          f"load average {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()
