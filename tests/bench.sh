#!/bin/sh
# make bench: the judge's speed figures (printed, never asserted).
#
#   tests/bench.sh BUILD_DIR
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tmp=$(mktemp -d /tmp/attnjudge-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "== sandbox overhead per run (tests/bench/sandbox_overhead)"
gcc -O2 -static -o "$tmp/echo_program" tests/bench/echo_program.c
"$build/bench_sandbox" "$tmp/echo_program" 300

echo
echo "== one judgement per seed problem (accepted/plain_float.c, warm reference cache, median of 5)"
/usr/bin/python3 - "$build/attnjudge" "$tmp/data" <<'PY'
import json, statistics, subprocess, sys, time
binary, data = sys.argv[1], sys.argv[2]
problems = ["mha-block-postln", "gpt2-attention", "mha-fused-qkv", "mha-cross"]
print(f"{'problem':18} {'total':>8} {'compile':>8} {'runs':>8} {'solution':>9} {'compare':>8} "
      f"{'tests':>5} {'per-run':>8} {'ratio':>6}")
for p in problems:
    src = f"tests/submissions/{p}/accepted/plain_float.c"
    cmd = [binary, "judge", "--problem", p, "--json", "--full", "--data", data, src]
    subprocess.run(cmd, capture_output=True, check=True)          # warm the cache
    rows = []
    for _ in range(5):
        t0 = time.monotonic()
        r = json.loads(subprocess.run(cmd, capture_output=True, check=True).stdout)
        total = (time.monotonic() - t0) * 1000
        runs = sum(t["wall_ms"] for t in r["tests"])
        cpu = sum(t["time_ms"] for t in r["tests"])
        cmp_ = sum(t["compare_ms"] for t in r["tests"])
        rows.append((total, r["compile_wall_ms"], runs, cpu, cmp_, len(r["tests"])))
    rows.sort()
    total, comp, runs, cpu, cmp_, n = rows[len(rows) // 2]
    ratio = total / (comp + cpu)
    print(f"{p:18} {total:7.0f}ms {comp:7.0f}ms {runs:7.1f}ms {cpu:8.1f}ms {cmp_:7.2f}ms "
          f"{n:5d} {runs / n:7.2f}ms {ratio:5.2f}x")
print("total: wall time of 'attnjudge judge'; compile: the compile sandbox's wall time;")
print("runs: the test sandboxes' wall time (set-up included); solution: the solution's CPU time")
print("(kernel accounting); ratio: total / (compile + solution), target <= 2x")
PY
if [ -f tests/server/bench.sh ]; then
    echo
    bash tests/server/bench.sh "$build"
fi
