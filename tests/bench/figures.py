#!/usr/bin/python3
"""make bench, the benchmark phase's figures (printed, never asserted).

    tests/bench/figures.py ATTNJUDGE DATA_DIR          the three sections below
    tests/bench/figures.py --torch-timing T [T ...]    (internal) PyTorch timings as JSON

1. benchmark figures: `attnjudge judge --bench --json` once per submission
   (gpt2-attention: plain_float.c, the plain reference-like solution, and
   blocked_avx2.c, the optimized example; attention-memory-bounded:
   tiled_flash.c and flash_avx2.c), per size: calls, median, CV, GFLOP/s,
   share of the machine's FMA peak, GB/s, speedup over the judge's reference
   and over the first submission of the problem; the machine's figures.
2. PyTorch comparison: GPT-2 causal attention in torch, one thread, at
   B=1, n_embd=768, n_head=12, T=256 and T=1024, with the judge's FLOP
   formula, next to blocked_avx2.c's figures from section 1 and the peak.
   Two torch variants: torch as installed (its matrix products go to the
   BLAS it was linked with, printed), and the same computation with every
   matrix product through oneDNN (torch's mkldnn_linear), which does not
   depend on that BLAS.
3. repeatability: blocked_avx2.c judged with --bench ten times in a row
   (same data directory, --bench-budget 3000): the CV across the runs of
   geomean_ms and of each size's median, the empty-function overhead, and
   where the wall clock of one --bench judgement goes.

Every figure is measured in this run; the data directory is the one the
earlier sections of tests/bench.sh used (cached references, machine.json).
"""
import json
import math
import os
import statistics
import subprocess
import sys
import time

SUB = "tests/submissions"
FIGURES = [("gpt2-attention", ["plain_float.c", "blocked_avx2.c"]),
           ("attention-memory-bounded", ["tiled_flash.c", "flash_avx2.c"])]
EXAMPLE = ("gpt2-attention", "blocked_avx2.c")
REPEATS = int(os.environ.get("BENCH_REPEATS", "10"))  # env for a quick try
REPEAT_BUDGET_MS = 3000
TORCH_WARMUP, TORCH_CALLS = 2, 12
B, C, H = 1, 768, 12
TARGET_GFLOPS = 25.0


def gpt2_flops(b, t, c):
    """problems/gpt2-attention/problem.json's benchmark.flops."""
    return 2 * b * t * c * 3 * c + 2 * b * t * (t + 1) * c + 2 * b * t * c * c


def cv(xs):
    """(sample standard deviation / mean, 1.4826 MAD / median)."""
    if len(xs) < 2:
        return 0.0, 0.0
    med = statistics.median(xs)
    mad = statistics.median(abs(x - med) for x in xs)
    return statistics.stdev(xs) / statistics.mean(xs), 1.4826 * mad / med


def judge(binary, data, problem, src, bench=True, budget=None):
    """One judgement: (wall ms, parsed JSON)."""
    cmd = [binary, "judge", "--problem", problem, "--json", "--data", data]
    if bench:
        cmd.append("--bench")
    if budget is not None:
        cmd += ["--bench-budget", str(budget)]
    cmd.append(src)
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = (time.monotonic() - t0) * 1000
    if p.returncode not in (0, 1):
        sys.exit(f"figures: {' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
    return wall, json.loads(p.stdout)


def pct(x):
    return f"{100 * x:.1f}"


# ---- 1. benchmark figures --------------------------------------------------

def section_figures(binary, data):
    print("== benchmark figures (attnjudge judge --bench --json, one judgement each, "
          "default budget 6000 ms per size)")
    results, machine = {}, None
    for problem, files in FIGURES:
        for f in files:
            wall, r = judge(binary, data, problem, f"{SUB}/{problem}/accepted/{f}")
            results[(problem, f)] = (wall, r)
            if r.get("benchmark") and r["benchmark"].get("machine"):
                machine = r["benchmark"]["machine"]
    if machine:
        print(f"machine: {machine['cpu']}, isa {machine['isa']}, FMA peak "
              f"{machine['fma_gflops']:.1f} GFLOP/s (one core), bandwidth "
              f"{machine['bandwidth_gbs']:.1f} GB/s")
    print(f"{'problem':25} {'submission':15} {'size':5} {'calls':>5} {'median ms':>10} "
          f"{'CV %':>5} {'GFLOP/s':>7} {'% peak':>6} {'GB/s':>6} {'% bw':>5} "
          f"{'x ref':>6} {'x base':>6} {'wall s':>6}")
    for problem, files in FIGURES:
        base = {}
        for f in files:
            wall, r = results[(problem, f)]
            bm = r.get("benchmark")
            if r["verdict"] != "accepted" or not bm:
                print(f"{problem:25} {f:15} verdict {r['verdict']}: no benchmark")
                continue
            if bm["verdict"] != "accepted":
                print(f"{problem:25} {f:15} benchmark {bm['verdict']} at "
                      f"{bm['failed_size']}: {bm['message']}")
            for s in bm["sizes"]:
                if s["status"] != "done":
                    print(f"{problem:25} {f:15} {s['name']:5} {s['status']}")
                    continue
                if f == files[0]:
                    base[s["name"]] = s["median_ms"]
                vs_base = base.get(s["name"], 0) / s["median_ms"]
                print(f"{problem:25} {f:15} {s['name']:5} {s['calls']:5d} "
                      f"{s['median_ms']:10.2f} {pct(s['cv']):>5} {s['gflops']:7.2f} "
                      f"{pct(s['peak_fraction']):>6} {s['gbs']:6.2f} "
                      f"{pct(s['bandwidth_fraction']):>5} {s['speedup'] or 0:5.1f}x "
                      f"{vs_base:5.1f}x {wall / 1000:6.1f}")
            if bm["geomean_ms"] is not None:
                print(f"{'':25} {f:15} geomean {bm['geomean_ms']:.2f} ms")
    print("""median ms: the submission's CPU time per call (the process's CPU clock read by the
judge around the function alone, fresh process and inputs per call, less the empty function's); CV: 1.4826 MAD / median of the
calls; % peak: GFLOP/s over the machine's FMA peak; % bw: GB/s over its bandwidth;
x ref: speedup over the judge's reference (reference_ms, timed in the first benchmark of the size and kept);
x base: speedup over the problem's first row (plain_float.c, tiled_flash.c), this run;
wall s: wall time of the whole judgement (tests, then the benchmark phase)""")
    return results, machine


# ---- 2. PyTorch --------------------------------------------------------------

def torch_timing(ts):
    """Run in a child process: prints one JSON object of torch timings."""
    import torch
    torch.set_num_threads(1)
    F = torch.nn.functional
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    lin = getattr(torch._C._nn, "mkldnn_linear", None)

    def attn(x, wa, ba, wp, bp):
        b, t, c = x.shape
        qkv = x @ wa + ba  # W stored (in, out)
        q, k, v = qkv.split(c, dim=2)
        q, k, v = (z.view(b, t, H, c // H).transpose(1, 2) for z in (q, k, v))
        if sdpa is not None:
            y = sdpa(q, k, v, is_causal=True)
        else:
            s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // H))
            mask = torch.ones(t, t, dtype=torch.bool).triu(1)
            y = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1) @ v
        return y.transpose(1, 2).reshape(b, t, c) @ wp + bp

    def attn_onednn(x, wa_t, ba, wp_t, bp):
        # the same, every matrix product through oneDNN: lin(a, w, bias) = a @ w^T + bias
        b, t, c = x.shape
        d = c // H
        qkv = lin(x.reshape(b * t, c).to_mkldnn(), wa_t, ba).to_dense().view(b, t, 3 * c)
        y = torch.empty(b, t, c)
        mask = torch.ones(t, t, dtype=torch.bool).triu(1)
        for i in range(b):
            for h in range(H):
                q = (qkv[i, :, h * d:(h + 1) * d] * (1.0 / math.sqrt(d))).contiguous()
                k = qkv[i, :, c + h * d:c + (h + 1) * d].contiguous()
                vt = qkv[i, :, 2 * c + h * d:2 * c + (h + 1) * d].t().contiguous()
                s = lin(q.to_mkldnn(), k.to_mkldnn()).to_dense().masked_fill_(mask, float("-inf"))
                p = torch.softmax(s, dim=-1).to_mkldnn()
                y[i, :, h * d:(h + 1) * d] = lin(p, vt.to_mkldnn()).to_dense()
        return lin(y.reshape(b * t, c).to_mkldnn(), wp_t, bp).to_dense().view(b, t, c)

    def timed(fn, *args):
        for _ in range(TORCH_WARMUP):
            fn(*args)
        ms = []
        for _ in range(TORCH_CALLS):
            t0 = time.perf_counter()
            fn(*args)
            ms.append((time.perf_counter() - t0) * 1000)
        return ms

    out = {"version": torch.__version__, "sdpa": sdpa is not None, "sizes": {}}
    g = torch.Generator().manual_seed(1)
    with torch.inference_mode():
        for t in ts:
            x = torch.randn(B, t, C, generator=g)
            wa = torch.randn(C, 3 * C, generator=g) * 0.036
            ba = torch.randn(3 * C, generator=g) * 0.05
            wp = torch.randn(C, C, generator=g) * 0.036
            bp = torch.randn(C, generator=g) * 0.05
            row = {"torch_ms": timed(attn, x, wa, ba, wp, bp)}
            if lin is not None and torch.backends.mkldnn.is_available():
                m = (wa.t().contiguous().to_mkldnn(), ba.to_mkldnn(),
                     wp.t().contiguous().to_mkldnn(), bp.to_mkldnn())
                ref = attn(x, wa, ba, wp, bp)
                row["onednn_maxdiff"] = (attn_onednn(x, *m) - ref).abs().max().item()
                row["onednn_ms"] = timed(attn_onednn, x, *m)
            out["sizes"][str(t)] = row
    # the BLAS library torch's matrix products went to (mapped by now)
    libs = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            name = os.path.basename(path)
            if any(k in name for k in ("blas", "mkl_", "blis")):
                libs.add(os.path.realpath(path))
    out["blas"] = sorted(libs)
    out["blas_info"] = next((p.split("=", 1)[1] for p in torch.__config__.show().replace(
        ",", "\n").split() if p.startswith("BLAS_INFO=")), "?")
    print(json.dumps(out))


def section_torch(results, machine):
    print()
    print(f"== PyTorch comparison (GPT-2 causal attention, B={B} n_embd={C} n_head={H}, "
          f"torch.set_num_threads(1), median of {TORCH_CALLS} calls after {TORCH_WARMUP} warm-up)")
    if subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode:
        print("torch not installed: skipped")
        return
    ts = [256, 1024]
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--torch-timing"]
                       + [str(t) for t in ts], capture_output=True, text=True)
    if p.returncode:
        print(f"torch timing failed: {p.stderr.strip().splitlines()[-1:]}")
        return
    tr = json.loads(p.stdout)
    blas = ", ".join(tr["blas"]) or "none mapped"
    generic = any("/blas/libblas" in b for b in tr["blas"])
    print(f"torch {tr['version']}, BLAS_INFO={tr['blas_info']}, BLAS library: {blas}"
          + (" (the netlib reference BLAS: unoptimized)" if generic else ""))
    print("attention core: " + ("scaled_dot_product_attention(is_causal=True)" if tr["sdpa"] else
          "explicit masked softmax (no scaled_dot_product_attention in this torch)"))
    print("torch+oneDNN: the same computation, every matrix product through oneDNN "
          "(torch._C._nn.mkldnn_linear), BLAS bypassed")
    peak = machine["fma_gflops"] if machine else float("nan")
    ex = results.get(EXAMPLE)
    sizes = {s["name"]: s for s in ex[1]["benchmark"]["sizes"]} if ex and ex[1].get(
        "benchmark") else {}
    print(f"{'T':>5} {'torch ms':>9} {'GFLOP/s':>7} {'oneDNN ms':>9} {'GFLOP/s':>7} "
          f"{'blocked_avx2 ms':>15} {'GFLOP/s':>7} {'% peak':>6} {'x torch':>7} {'x oneDNN':>8}")
    example256 = None
    for t in ts:
        row = tr["sizes"][str(t)]
        fl = gpt2_flops(B, t, C)
        tm = statistics.median(row["torch_ms"])
        om = statistics.median(row["onednn_ms"]) if "onednn_ms" in row else float("nan")
        s = sizes.get(f"t{t}")
        em = s["median_ms"] if s and s["status"] == "done" else float("nan")
        eg = fl / (em * 1e6)
        if t == 256:
            example256 = eg
        print(f"{t:5d} {tm:9.1f} {fl / (tm * 1e6):7.2f} {om:9.1f} {fl / (om * 1e6):7.2f} "
              f"{em:15.2f} {eg:7.2f} {pct(eg / peak):>6} {tm / em:6.1f}x {om / em:7.2f}x")
        if "onednn_maxdiff" in row:
            print(f"      (torch+oneDNN vs torch: max |difference| {row['onednn_maxdiff']:.1e}; "
                  f"torch calls {min(row['torch_ms']):.1f}..{max(row['torch_ms']):.1f} ms)")
    if example256 is not None:
        verdict = "met" if example256 >= TARGET_GFLOPS else "NOT met"
        print(f"target blocked_avx2.c >= {TARGET_GFLOPS:.0f} GFLOP/s at n_embd 768, T 256: {verdict} "
              f"({example256:.1f} GFLOP/s = {pct(example256 / peak)}% of the {peak:.1f} GFLOP/s "
              f"FMA peak)")
    print("""GFLOP/s with the judge's formula 2BTC*3C + 2BT(T+1)C + 2BTC*C for every column (the
causal FLOPs, though torch computes the full T x T scores). torch is timed in one process
on the same inputs (wall clock, warm caches); blocked_avx2.c is section 1's median
(CPU time around the function, fresh process and inputs per call, less the empty function's).""")


# ---- 3. repeatability --------------------------------------------------------

def section_repeat(binary, data):
    problem, f = EXAMPLE
    src = f"{SUB}/{problem}/accepted/{f}"
    print()
    print(f"== repeatability ({f} on {problem}: {REPEATS} judgements with --bench "
          f"--bench-budget {REPEAT_BUDGET_MS}, same data directory)")
    plain = sorted(judge(binary, data, problem, src, bench=False)[0] for _ in range(3))
    runs = []
    for i in range(REPEATS):
        wall, r = judge(binary, data, problem, src, budget=REPEAT_BUDGET_MS)
        bm = r.get("benchmark")
        if r["verdict"] != "accepted" or not bm or bm["verdict"] != "accepted":
            print(f"run {i + 1}: verdict {r['verdict']}, benchmark "
                  f"{bm and bm['verdict']}: {bm and bm['message']}")
            continue
        if bm["geomean_ms"] is None:
            print(f"run {i + 1}: not every size measured: "
                  + ", ".join(f"{s['name']} {s['status']}" for s in bm["sizes"]))
            continue
        runs.append((wall, bm))
    if len(runs) < 2:
        print("fewer than two runs accepted: no figures")
        return
    names = [s["name"] for s in runs[0][1]["sizes"]]
    print(f"{'run':>3} {'wall s':>6} {'geomean ms':>10}"
          + "".join(f" {n + ' ms':>10} {'calls':>5} {'cv %':>5} {'ovh ms':>6}" for n in names))
    for i, (wall, bm) in enumerate(runs):
        cells = ""
        for s in bm["sizes"]:
            cells += (f" {s['median_ms']:10.2f} {s['calls']:5d} {pct(s['cv']):>5} "
                      f"{s['overhead_ms']:6.2f}")
        print(f"{i + 1:3d} {wall / 1000:6.1f} {bm['geomean_ms']:10.2f}" + cells)

    def line(label, xs):
        c, rc = cv(xs)
        ok = "ok" if c <= 0.02 else "above target"
        print(f"  {label:12} mean {statistics.mean(xs):9.2f} ms, min {min(xs):9.2f}, max "
              f"{max(xs):9.2f}; CV {pct(c)}% (robust {pct(rc)}%)  {ok}")
    print(f"CV across the {len(runs)} runs (stdev / mean; robust: 1.4826 MAD / median), "
          "target <= 2%:")
    line("geomean_ms", [bm["geomean_ms"] for _, bm in runs])
    for k, n in enumerate(names):
        line(n + " median", [bm["sizes"][k]["median_ms"] for _, bm in runs])

    print("measurement overhead: the empty function's CPU time per call, from the judge's go "
          "to its return (the copies are the judge's), subtracted from every call:")
    for k, n in enumerate(names):
        ovh = statistics.mean(bm["sizes"][k]["overhead_ms"] for _, bm in runs)
        med = statistics.mean(bm["sizes"][k]["median_ms"] for _, bm in runs)
        print(f"  {n:6} overhead_ms mean {ovh:6.2f} = {pct(ovh / med)}% of the median "
              f"{med:.2f} ms")

    # where one --bench judgement's wall clock goes (means over the runs)
    wall = statistics.mean(w for w, _ in runs)
    judged = statistics.median(plain)
    timed = statistics.mean(sum(s["median_ms"] * s["calls"] for s in bm["sizes"]) for _, bm in runs)
    # every call runs the submission (the warm-up call is one more), each in
    # a process of its own; the empty function runs three calls per size;
    # the reference runs on reference_calls of them in the first judgement
    # of a size (reference_kept false), on none later; the other calls
    # take its outputs from the cache (warm after the first judgement)
    calls = statistics.mean(sum(s["calls"] + 1 for s in bm["sizes"]) for _, bm in runs)
    ref = statistics.mean(sum((s["reference_ms"] + s["overhead_ms"]) * s["reference_calls"]
                              for s in bm["sizes"] if not s["reference_kept"])
                          for _, bm in runs)
    empty = statistics.mean(sum(s["overhead_ms"] * 3 for s in bm["sizes"]) for _, bm in runs)
    sol_all = statistics.mean(sum((s["median_ms"] + s["overhead_ms"]) * (s["calls"] + 1)
                                  for s in bm["sizes"]) for _, bm in runs)
    phase = wall - judged
    rest = phase - ref - empty - sol_all
    print(f"wall clock of one --bench judgement (mean of {len(runs)}): {wall / 1000:.1f} s")
    print(f"  the same judgement without --bench (median of 3):   {judged / 1000:6.2f} s")
    print(f"  benchmark phase (difference):                        {phase / 1000:6.2f} s, "
          f"{calls:.1f} calls with the warm-up")
    print(f"    reference runs, the timed ones (~CPU):             {ref / 1000:6.2f} s "
          f"({pct(ref / phase)}%)")
    print(f"    empty-function runs, three per size (~CPU):        {empty / 1000:6.2f} s "
          f"({pct(empty / phase)}%)")
    print(f"    submission runs incl. warm-up and overhead (~CPU): {sol_all / 1000:6.2f} s "
          f"({pct(sol_all / phase)}%)")
    print(f"    rest: inputs, checks, sandboxes, waiting for a CPU:{rest / 1000:6.2f} s "
          f"({pct(rest / phase)}%)")
    print(f"  timed solution time, sum of median x calls:          {timed / 1000:6.2f} s = "
          f"{pct(timed / wall)}% of the judgement's wall clock, {pct(timed / phase)}% of the "
          f"benchmark phase")
    print(f"  measurement machinery: {pct(1 - timed / wall)}% of the wall clock "
          f"({pct(1 - timed / phase)}% of the benchmark phase)")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--torch-timing":
        torch_timing([int(t) for t in sys.argv[2:]])
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, data = sys.argv[1], sys.argv[2]
    t0 = time.monotonic()
    print(f"(load average before: {' '.join(open('/proc/loadavg').read().split()[:3])}, "
          f"{os.cpu_count()} CPUs; other work on the machine shows in every figure below)")
    results, machine = section_figures(binary, data)
    section_torch(results, machine)
    section_repeat(binary, data)
    print(f"(benchmark figures, PyTorch and repeatability: {time.monotonic() - t0:.0f} s; "
          f"load average after: {' '.join(open('/proc/loadavg').read().split()[:3])})")


if __name__ == "__main__":
    main()
