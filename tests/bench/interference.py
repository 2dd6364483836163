#!/usr/bin/python3
"""make bench: what a verdict judged beside a benchmark does to its figure,
with and without a core of its own (docs/performance.md, "Interference").

    tests/bench/interference.py ATTNJUDGE DATA_DIR

Three conditions, interleaved round by round so that a drift of the machine
falls on all of them alike:

  alone    `attnjudge judge --bench` with nothing else running;
  shared   the same, while verdicts are judged beside it in a loop, every
           process free to run on any core (bench_cpu = off);
  pinned   the same load, the benchmark on the last core and the verdicts
           on the others (what bench_cpu does: the server moves the thread
           that benchmarks, and its sandboxes inherit the affinity; here
           taskset sets the same affinity on the two processes).

Per condition: the median over the rounds of geomean_ms, its run-to-run CV,
and its change against `alone`. Printed, never asserted.
"""
import json
import os
import statistics
import subprocess
import sys
import time

PROBLEM, SOURCE = "gpt2-attention", "tests/submissions/gpt2-attention/accepted/blocked_avx2.c"
LOAD_PROBLEM = "mha-block-postln"
LOAD_SOURCE = "tests/submissions/mha-block-postln/accepted/plain_float.c"
ROUNDS = int(os.environ.get("BENCH_INTERFERENCE_ROUNDS", "5"))
BUDGET_MS = 1500


def taskset(cores, cmd):
    return ["taskset", "-c", ",".join(str(c) for c in cores)] + cmd if cores else cmd


def bench(binary, data, cores):
    cmd = [binary, "judge", "--problem", PROBLEM, "--json", "--bench", "--bench-budget",
           str(BUDGET_MS), "--data", data, SOURCE]
    out = subprocess.run(taskset(cores, cmd), capture_output=True, check=True, timeout=900)
    return json.loads(out.stdout)["benchmark"]["geomean_ms"]


def load(binary, data, cores):
    """A shell loop judging verdicts until killed (its own process group)."""
    judge = " ".join([binary, "judge", "--problem", LOAD_PROBLEM, "--data", data, LOAD_SOURCE])
    script = "while :; do %s >/dev/null 2>&1; done" % judge
    return subprocess.Popen(taskset(cores, ["sh", "-c", script]), start_new_session=True)


def stop(proc):
    os.killpg(proc.pid, 15)
    proc.wait(timeout=30)


def main():
    binary, data = sys.argv[1], sys.argv[2]
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        print("interference: one core only, nothing to pin (skipped)")
        return 0
    bench_core, judging = [cores[-1]], cores[:-1]
    # warm the caches (reference outputs, harness) for both problems
    bench(binary, data, None)
    subprocess.run([binary, "judge", "--problem", LOAD_PROBLEM, "--data", data, LOAD_SOURCE],
                   capture_output=True, check=True)
    def beside_load(load_cores, bench_cores):
        proc = load(binary, data, load_cores)
        time.sleep(1)
        try:
            return bench(binary, data, bench_cores)
        finally:
            stop(proc)

    figures = {"alone": [], "shared": [], "pinned": []}
    for _ in range(ROUNDS):
        figures["alone"].append(bench(binary, data, None))
        figures["shared"].append(beside_load(None, None))
        figures["pinned"].append(beside_load(judging, bench_core))
    base = statistics.median(figures["alone"])
    print("%s (%s), geomean_ms over %d rounds; verdicts of %s judged in a loop beside it"
          % (PROBLEM, os.path.basename(SOURCE), ROUNDS, LOAD_PROBLEM))
    print("%-8s %10s %8s %9s" % ("", "median", "CV", "vs alone"))
    for name, xs in figures.items():
        med = statistics.median(xs)
        cv = statistics.stdev(xs) / statistics.mean(xs) if len(xs) > 1 else 0.0
        print("%-8s %10.2f %7.1f%% %+8.1f%%" % (name, med, 100 * cv, 100 * (med / base - 1)))
    print("pinned: the benchmark on core %d, the verdicts on cores %s"
          % (bench_core[0], ",".join(str(c) for c in judging)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
