#!/usr/bin/python3
"""make bench: what the measurement adds to a benchmark's figures, and its
noise held against the machine's own (printed, never asserted).

    tests/bench/overhead_cv.py ATTNJUDGE DATA_DIR

1. overhead share: every problem's benchmark, `judge --bench` once with its
   accepted plain_float.c (or its first accepted file): per size the empty
   function's time per call (overhead_ms, what is subtracted from every
   call) as a share of the measured time (median_ms + overhead_ms), and
   the heap made ready before the timed calls (heap_mib).
   Target: <= 5 % at every size of every problem.
2. CV of the geometric mean against a fixed compute loop: ROUNDS rounds,
   each judging gpt2-attention's blocked_avx2.c with --bench (a textually
   distinct copy each round, as students resubmit) and timing
   tests/bench/compute_loop.c (its own CPU time) right before it: the
   coefficient of variation (stdev / mean) of the geomean_ms over the
   rounds beside the loop's. Targets: the first <= 2x the second, and
   <= 2 % on a quiet machine. Beside them a second yardstick,
   tests/bench/kernel_loop.c: the same blocked_avx2.c at the same sizes
   in one warm process on fixed inputs (no sandbox, no fresh inputs or
   memory), timed in the same rounds: what the machine does to this
   kernel's memory traffic, which the register-only loop cannot see. A
   third, tests/bench/stream_loop.c: an 8 MiB streaming loop (what the
   target's issue measured beside the register loop), the caches' and
   memory's noise with no kernel of ours in it. For comparison (not
   ranked) the CV of the geometric mean of the per-size minimum times
   (min_ms) over the same rounds.
3. the machine's floor over time: kernel_loop.c --over FLOOR_SECONDS, the
   same kernel at its first size called again and again in one warm
   process, a register loop after each call; the calls grouped into
   windows of 1, 2, 5 and 10 s (a judgement measures a size within a few
   seconds, at most its budget), and the CV of the windows' medians, the
   kernel's beside the loop's. A method that measures this kernel within
   such a window cannot move less than the kernel itself does from one
   window to the next.

BENCH_CV_ROUNDS (8), BENCH_CV_BUDGET (3000 ms per size),
BENCH_OVERHEAD_BUDGET (1000 ms per size) and BENCH_FLOOR_SECONDS (60)
shorten a quick try; BENCH_SECTIONS ("overhead cv floor") picks the
sections, in that order, and BENCH_PROBLEMS (all) the overhead section's
problems.
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUB = os.path.join(ROOT, "tests", "submissions")
BENCH_DIR = os.path.join(ROOT, "tests", "bench")
ROUNDS = int(os.environ.get("BENCH_CV_ROUNDS", "8"))
CV_BUDGET = int(os.environ.get("BENCH_CV_BUDGET", "3000"))
OVERHEAD_BUDGET = int(os.environ.get("BENCH_OVERHEAD_BUDGET", "1000"))
FLOOR_SECONDS = float(os.environ.get("BENCH_FLOOR_SECONDS", "60"))
EXAMPLE = ("gpt2-attention", "blocked_avx2.c")


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def bench(binary, data, problem, src, budget):
    """One `judge --bench --json`: the benchmark report, or None (said why)."""
    cmd = [binary, "judge", "--problem", problem, "--json", "--bench", "--bench-budget",
           str(budget), "--data", data, src]
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        r = json.loads(p.stdout)
    except ValueError:
        print(f"  {problem}: judge exited {p.returncode}: {p.stderr.strip()[-300:]}")
        return None
    b = r.get("benchmark")
    if r.get("verdict") != "accepted" or not b or b.get("verdict") != "accepted":
        print(f"  {problem}: verdict {r.get('verdict')}, benchmark "
              f"{b and b.get('verdict')}: {b and (b.get('message') or b.get('internal_message'))}")
        return None
    return b


def accepted_file(problem):
    d = os.path.join(SUB, problem, "accepted")
    names = sorted(os.listdir(d))
    if "plain_float.c" in names:
        return "plain_float.c"
    return next(n for n in names if n.endswith(".c") and n != "debug_printf.c")


def section_overhead(binary, data):
    print(f"== overhead share per size: overhead_ms / (median_ms + overhead_ms), target <= 5 % "
          f"(judge --bench --bench-budget {OVERHEAD_BUDGET}, one judgement per problem)")
    print(f"{'problem':26} {'file':22} {'size':18} {'median ms':>10} {'overhead ms':>11} "
          f"{'share %':>8} {'heap MiB':>8}")
    worst = []
    problems = os.environ.get("BENCH_PROBLEMS", "").split() or sorted(
        p for p in os.listdir(os.path.join(ROOT, "problems"))
        if os.path.isdir(os.path.join(SUB, p, "accepted")))
    for problem in problems:
        with open(os.path.join(ROOT, "problems", problem, "problem.json")) as f:
            if not json.load(f).get("benchmark", {}).get("sizes"):
                continue
        name = accepted_file(problem)
        b = bench(binary, data, problem, os.path.join(SUB, problem, "accepted", name),
                  OVERHEAD_BUDGET)
        if not b:
            continue
        for s in b["sizes"]:
            if s["status"] != "done":
                print(f"{problem:26} {name:22} {s['name']:18} {s['status']}")
                continue
            share = s["overhead_ms"] / (s["median_ms"] + s["overhead_ms"])
            worst.append((share, problem, s["name"]))
            print(f"{problem:26} {name:22} {s['name']:18} {s['median_ms']:10.3f} "
                  f"{s['overhead_ms']:11.4f} {100 * share:8.3f} {s['heap_mib']:8d}")
    if worst:
        share, problem, size = max(worst)
        print(f"largest share: {100 * share:.3f} % ({problem} {size}) over {len(worst)} sizes: "
              f"{'ok' if share <= 0.05 else 'ABOVE the 5 % target'}")


def cv(xs):
    return statistics.stdev(xs) / statistics.mean(xs) if len(xs) > 1 else 0.0


def build_kernel_loop(tmp):
    """tests/bench/kernel_loop.c linked with the example's judged file"""
    problem, name = EXAMPLE
    kernel = os.path.join(tmp, "kernel_loop")
    subprocess.run(["gcc", "-O2", "-o", kernel, os.path.join(BENCH_DIR, "kernel_loop.c"),
                    os.path.join(SUB, problem, "accepted", name), "-lm"], check=True)
    return kernel


def section_cv(binary, data, tmp):
    problem, name = EXAMPLE
    with open(os.path.join(SUB, problem, "accepted", name)) as f:
        text = f.read()
    loop, stream = os.path.join(tmp, "compute_loop"), os.path.join(tmp, "stream_loop")
    subprocess.run(["gcc", "-O2", "-o", loop, os.path.join(BENCH_DIR, "compute_loop.c")],
                   check=True)
    subprocess.run(["gcc", "-O3", "-march=native", "-o", stream,
                    os.path.join(BENCH_DIR, "stream_loop.c")], check=True)
    kernel = build_kernel_loop(tmp)
    print()
    print(f"== CV of the geometric mean vs a fixed compute loop ({name} on {problem}, "
          f"{ROUNDS} rounds, --bench-budget {CV_BUDGET}; the loop, the 8 MiB stream and the "
          "kernel in one warm process timed before each judgement)")
    print(f"{'round':>5} {'loop ms':>8} {'stream ms':>9} {'kernel ms':>9} {'geomean ms':>10}  "
          "per size (median ms, calls, cv %)")
    loops, streams, kernels, geos, mins = [], [], [], [], []
    for i in range(ROUNDS):
        for prog, times in ((loop, loops), (stream, streams), (kernel, kernels)):
            out = subprocess.run([prog], capture_output=True, text=True, check=True).stdout
            times.append(float(out))
        src = os.path.join(tmp, f"round{i}.c")
        with open(src, "w") as f:
            f.write(f"/* round {i} of make bench's repeatability */\n" + text)
        b = bench(binary, data, problem, src, CV_BUDGET)
        if not b or b["geomean_ms"] is None:
            print(f"{i + 1:5d} {loops[-1]:8.2f} {streams[-1]:9.2f} {kernels[-1]:9.2f} {'-':>10}  "
                  + (", ".join(f"{s['name']} {s['status']}" for s in b["sizes"]) if b else ""))
            continue
        geos.append(b["geomean_ms"])
        sizes = [s for s in b["sizes"] if s["min_ms"]]
        mins.append(math.exp(sum(math.log(s["min_ms"]) for s in sizes) / len(sizes)))
        print(f"{i + 1:5d} {loops[-1]:8.2f} {streams[-1]:9.2f} {kernels[-1]:9.2f} "
              f"{b['geomean_ms']:10.3f}  "
              + ", ".join(f"{s['name']} {s['median_ms']:.2f} {s['calls']} {100 * s['cv']:.1f}"
                          for s in b["sizes"]))
    if len(geos) < 2:
        print("fewer than two rounds measured: no CV")
        return
    c_geo, c_loop = cv(geos), cv(loops)
    ratio = c_geo / c_loop if c_loop > 0 else float("inf")
    print(f"CV of geomean_ms {100 * c_geo:.2f} %  |  CV of the compute loop {100 * c_loop:.2f} %"
          f"  |  ratio {ratio:.2f}x (target <= 2x: {'ok' if ratio <= 2 else 'above'}; "
          f"<= 2 % on a quiet machine: {'ok' if c_geo <= 0.02 else 'above'})")
    print(f"(not ranked, for comparison: the geometric mean of the per-size minimums moved "
          f"{100 * cv(mins):.2f} %)")
    c_stream = cv(streams)
    print(f"the 8 MiB streaming loop: CV {100 * c_stream:.2f} % (the judge's figure moves "
          f"{c_geo / c_stream if c_stream > 0 else float('inf'):.2f}x as much)")
    c_kernel = cv(kernels)
    print(f"the same kernel in one warm process: CV {100 * c_kernel:.2f} %, so the judge's "
          f"figure moves {c_geo / c_kernel if c_kernel > 0 else float('inf'):.2f}x as much as "
          "the kernel does by itself on this machine")


def section_floor(tmp):
    problem, name = EXAMPLE
    kernel = build_kernel_loop(tmp)
    print()
    print(f"== the machine's floor over time: {name}'s first size in one warm process, called "
          f"for {FLOOR_SECONDS:.0f} s, a register loop after each call; CV of the medians of "
          "windows of each length")
    out = subprocess.run([kernel, "--over", str(FLOOR_SECONDS)], capture_output=True, text=True,
                         check=True).stdout
    calls = [tuple(map(float, line.split())) for line in out.splitlines()]
    print(f"{len(calls)} calls, kernel median {statistics.median(c[1] for c in calls):.2f} ms, "
          f"loop median {statistics.median(c[2] for c in calls):.2f} ms")
    print(f"{'window s':>8} {'windows':>7} {'kernel CV %':>11} {'loop CV %':>9} {'ratio':>6}")
    for length in (1, 2, 5, 10):
        windows = {}
        for at, kernel_ms, loop_ms in calls:
            windows.setdefault(int(at // length), []).append((kernel_ms, loop_ms))
        full = [w for w in windows.values() if len(w) >= 3]
        if len(full) < 3:
            print(f"{length:8d} {len(full):7d}  (too few windows for a CV)")
            continue
        c_kernel = cv([statistics.median(k for k, _ in w) for w in full])
        c_loop = cv([statistics.median(l for _, l in w) for w in full])
        print(f"{length:8d} {len(full):7d} {100 * c_kernel:11.2f} {100 * c_loop:9.2f} "
              f"{c_kernel / c_loop if c_loop > 0 else float('inf'):6.2f}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, data = sys.argv[1], sys.argv[2]
    t0 = time.monotonic()
    print(f"(load average before: {loadavg()}, {os.cpu_count()} CPUs; other work on the machine "
          "shows in every figure below)")
    with tempfile.TemporaryDirectory(prefix="attnjudge-overhead-cv.") as tmp:
        for name in os.environ.get("BENCH_SECTIONS", "overhead cv floor").split():
            {"overhead": lambda: section_overhead(binary, data),
             "cv": lambda: section_cv(binary, data, tmp),
             "floor": lambda: section_floor(tmp)}[name]()
    print(f"(overhead, CV and floor: {time.monotonic() - t0:.0f} s; load average after: {loadavg()})")


if __name__ == "__main__":
    main()
