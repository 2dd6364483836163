"""The benchmark phase (issue 12), through a real server: the verdict is
recorded first and the figures arrive after it; the machine's ceilings are
in /api/vocabulary and /metrics; every figure of a size is there and
consistent (GFLOP/s = FLOPs / median, the share of the peak, the
intensity, the geometric mean); identical code is measured once (pooled);
the leaderboard ranks by the geometric mean and shows the figures per
size; a size lost in the measurement's noise is unresolved, unranked and
measured again when resubmitted; a rejudge measures again; six copies that
differ only in comments, layout and the names of locals share one
measurement, and entries whose intervals overlap are shown tied; and the cheats
of tests/server/bench-cheats either fail (wrong_answer,
security_violation, compile_error) or gain nothing (their measured time
keeps the work they hoped to hide); the honest twin of the cheat that
would take the harness's copy and fill off its figure is accepted and
measured; a cheat that forges the harness's end-of-call record is
wrong_answer or measured with its work.

The timings are asserted as behaviour, never as speed: the cheats burn
about 20 ms per call (200 ms of work at 10 ns per iteration and more), and
a cheat that worked would be measured at a fraction of a millisecond.

    python3 tests/server/benchmark.py BUILD_DIR/attnjudge
"""
import json
import math
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, run_scenario, source, submission, wait_until  # noqa: E402

SLUG = "softmax-stable"
FLOOR = "softmax-floor"
CHEATS = os.path.join(os.path.dirname(__file__), "bench-cheats")
SIZES = [{"name": "rows-512", "dims": {"rows": 512, "cols": 1024}},
         {"name": "cols-8192", "dims": {"rows": 64, "cols": 8192}}]


def problems_dir(tmp):
    """softmax-stable with two small benchmark sizes of its own (quick), and
    FLOOR, the same problem claiming a million times the FLOPs: the floor
    (the time the machine's FMA peak needs for them) is far above every
    call's time, so every size comes out unresolved."""
    root = os.path.join(tmp, "problems")
    for slug, flops in ((SLUG, "5*rows*cols"), (FLOOR, "5000000*rows*cols")):
        shutil.copytree(os.path.join(ROOT, "problems", SLUG), os.path.join(root, slug))
        path = os.path.join(root, slug, "problem.json")
        with open(path, encoding="utf-8") as f:
            pj = json.load(f)
        pj["slug"] = slug
        pj["benchmark"] = {"flops": flops, "bytes": "8*rows*cols", "sizes": SIZES}
        with open(path, "w", encoding="utf-8") as f:
            json.dump(pj, f, indent=1)
    shutil.copy(os.path.join(ROOT, "reference", SLUG + ".c"),
                os.path.join(root, FLOOR, "reference.c"))
    return root


def cheat(name):
    """A cheat's source as one file: common.h pasted in place of its #include."""
    with open(os.path.join(CHEATS, "common.h"), encoding="utf-8") as f:
        common = f.read()
    with open(os.path.join(CHEATS, name), encoding="utf-8") as f:
        return f.read().replace('#include "common.h"\n', common)


def metrics_text(srv):
    cl = srv.client()
    cl.conn.request("GET", "/metrics")
    text = cl.conn.getresponse().read().decode()
    cl.close()
    return text


def settled(cl, sid, limit_s=240):
    """The submission once its verdict is in and its benchmark (if any) ended."""
    def done():
        b = submission(cl, sid)
        if b and b["status"] == "done" and (b.get("benchmark") is None or
                                             b["benchmark"]["status"] in ("done", "failed")):
            return b
        return None
    return wait_until(done, limit_s, 0.2)


def submit(rep, cl, who, src, slug=SLUG):
    """Submits src; returns once its verdict is in and its benchmark (if
    any) no longer waits: a student's newer accepted submission of the same
    problem replaces their older waiting benchmark (docs/performance.md), and
    each of one student's cheats is to be measured."""
    st, body, _ = cl.submit(slug, src)
    rep.check("%s submits: 202" % who, st == 202, json.dumps(body))
    if st != 202:
        return 0

    def out_of_line():
        b = submission(cl, body["id"])
        return b and b["status"] == "done" and (b.get("benchmark") is None
                                                or b["benchmark"]["status"] != "pending")
    wait_until(out_of_line, 240, 0.1)
    return body["id"]


def check_figures(rep, who, b, peak):
    bench = b["benchmark"]
    sizes = bench["sizes"]
    rep.check("%s: one entry per benchmark size, in order" % who,
              [s["name"] for s in sizes] == [s["name"] for s in SIZES], json.dumps(bench)[:400])
    for s, want in zip(sizes, SIZES):
        d = want["dims"]
        flops, byts = 5 * d["rows"] * d["cols"], 8 * d["rows"] * d["cols"]
        ok = (s["status"] == "done" and s["calls"] >= 3 and s["median_ms"] > 0
              and s["min_ms"] <= s["median_ms"] and s["cv"] >= 0 and s["reference_ms"] > 0
              and s["overhead_ms"] >= 0 and s["flops"] == flops and s["bytes"] == byts
              and s["dims"] == d)
        rep.check("%s %s: measured (calls, median, min, cv, reference, overhead, counts)"
                  % (who, s["name"]), ok, json.dumps(s))
        if not ok:
            continue
        rep.check("%s %s: GFLOP/s = FLOPs / median" % (who, s["name"]),
                  math.isclose(s["gflops"], flops / (s["median_ms"] * 1e6), rel_tol=1e-6),
                  json.dumps(s))
        rep.check("%s %s: share of the peak = GFLOP/s / FMA peak, in (0, 1)" % (who, s["name"]),
                  math.isclose(s["peak_fraction"], s["gflops"] / peak, rel_tol=1e-6)
                  and 0 < s["peak_fraction"] < 1, json.dumps(s))
        rep.check("%s %s: intensity = FLOPs / bytes, speedup = reference / median"
                  % (who, s["name"]),
                  math.isclose(s["intensity"], flops / byts, rel_tol=1e-9)
                  and math.isclose(s["speedup"], s["reference_ms"] / s["median_ms"],
                                   rel_tol=1e-6), json.dumps(s))
    geo = math.exp(sum(math.log(s["median_ms"]) for s in sizes) / len(sizes))
    rep.check("%s: geomean_ms is the geometric mean of the medians" % who,
              bench["geomean_ms"] and math.isclose(bench["geomean_ms"], geo, rel_tol=1e-6),
              json.dumps(bench)[:300])
    rep.check("%s: the report names the machine it was measured on" % who,
              bench["machine"] and bench["machine"]["fma_gflops"] == peak)


def run(srv, rep):
    prof = srv.client()
    prof.sign_in("prof", "prof-password")
    alice, bob, carol = srv.client(), srv.client(), srv.client()
    for cl, name in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
        cl.sign_up(name)

    st, voc, _ = alice.call("GET", "/api/vocabulary")
    m = (voc or {}).get("machine") or {}
    rep.check("vocabulary: the machine's FMA peak and bandwidth", st == 200
              and m.get("fma_gflops", 0) > 0 and m.get("bandwidth_gbs", 0) > 0
              and m.get("cpu") and m.get("isa") in ("avx2-fma", "scalar"), json.dumps(voc)[:300])
    peak = m.get("fma_gflops", 1)
    metrics = metrics_text(srv)
    # the sample alert rules (deploy/prometheus/) name only metrics that exist
    rules = open(os.path.join(ROOT, "deploy", "prometheus", "attnjudge-alerts.yml")).read()
    named = set(re.findall(r"\b(attnjudge_[a-z_]+)", rules))
    missing = [n for n in named if not re.search(r"^%s[{ ]" % re.escape(n), metrics, re.M)]
    rep.check("the sample alert rules name %d metrics, all in /metrics" % len(named),
              len(named) >= 6 and not missing, str(missing))
    rep.check("/metrics: the machine's ceilings",
              re.search(r"^attnjudge_machine_fma_gflops [0-9.]+$", metrics, re.M) is not None
              and re.search(r"^attnjudge_machine_bandwidth_gbs [0-9.]+$", metrics, re.M)
              is not None, metrics[-600:])

    honest = source("tests/submissions/%s/accepted/plain_float.c" % SLUG)
    a1 = submit(rep, alice, "alice", honest)
    first = wait_until(lambda: (lambda b: b if b and b["status"] == "done" else None)(
        submission(alice, a1)), 120, 0.05)
    rep.check("the verdict comes first: accepted, with the benchmark still to come or running",
              first and first["verdict"] == "accepted" and first["benchmark"] is not None
              and first["benchmark"]["status"] in ("pending", "running", "done"),
              json.dumps(first)[:400])
    b = settled(alice, a1)
    rep.check("alice's benchmark ends done", b and b["benchmark"]["status"] == "done",
              json.dumps(b)[:600] if b else "timed out")
    if not (b and b["benchmark"]["status"] == "done"):
        return
    check_figures(rep, "alice", b, peak)
    honest_ms = b["benchmark"]["geomean_ms"]

    # the same source again: measured once, the figures shared
    a2 = submit(rep, alice, "alice again, same source", honest)
    b2 = settled(alice, a2)
    rep.check("identical code is not measured again: the same figures", b2
              and b2["benchmark"]["status"] == "done"
              and b2["benchmark"]["sizes"] == b["benchmark"]["sizes"]
              and b2["benchmark"]["geomean_ms"] == honest_ms, json.dumps(b2)[:400])
    metrics = metrics_text(srv)
    rep.check("/metrics counts the pooled benchmark",
              re.search(r"^attnjudge_benchmarks_pooled_total 1$", metrics, re.M) is not None)

    # A measurement lost in the noise is no figure: unranked, and the same
    # source submitted again is measured again instead of sharing it.
    f1 = submit(rep, alice, "alice on %s" % FLOOR, honest, FLOOR)
    u1 = settled(alice, f1)
    rep.check("%s: accepted, every size unresolved, no figure, no geometric mean" % FLOOR, u1
              and u1["verdict"] == "accepted" and u1["benchmark"]["status"] == "done"
              and [s["status"] for s in u1["benchmark"]["sizes"]] == ["unresolved"] * len(SIZES)
              and all(s["calls"] >= 3 and s["median_ms"] is None and s["peak_fraction"] is None
                      for s in u1["benchmark"]["sizes"])
              and u1["benchmark"]["geomean_ms"] is None, json.dumps(u1)[:600] if u1 else "timeout")
    f2 = submit(rep, alice, "alice on %s again, same source" % FLOOR, honest, FLOOR)
    u2 = settled(alice, f2)
    rep.check("%s again: measured again, not given the unresolved figures" % FLOOR, u2
              and u2["benchmark"]["status"] == "done"
              and re.search(r"^attnjudge_benchmarks_pooled_total 1$", metrics_text(srv), re.M)
              is not None, json.dumps(u2)[:300] if u2 else "timeout")
    st, lb, _ = alice.call("GET", "/api/leaderboard/" + FLOOR)
    rep.check("%s leaderboard: alice is there, unranked (no bench_ms)" % FLOOR, st == 200
              and [(e["user"], e["bench_ms"]) for e in lb["entries"]] == [("alice", None)],
              json.dumps(lb)[:400])

    # the cheats
    ids = {}
    for name in ("cache_first_result.c", "skip_after_warmup.c", "skip_repeated_inputs.c",
                 "fake_clock.c", "work_in_thread.c", "wrong_at_scale.c", "mmap_input_cheat.c",
                 "mmap_input_only.c", "mmap_input_twin.c", "fake_call_done.c"):
        ids[name] = submit(rep, carol if name != "wrong_at_scale.c" else bob, name, cheat(name))
    for name in ("cache_first_result.c", "skip_after_warmup.c", "skip_repeated_inputs.c",
                 "fake_clock.c"):
        c = settled(carol, ids[name])
        ok = c and c["verdict"] == "accepted" and c["benchmark"]["status"] == "done"
        rep.check("%s: accepted and measured" % name, ok, json.dumps(c)[:500] if c else "timeout")
        if ok:
            meds = [s["median_ms"] for s in c["benchmark"]["sizes"]]
            rep.check("%s gains nothing: every size still costs the hidden work (>= 5 ms)"
                      % name, min(meds) >= 5, json.dumps(c["benchmark"]["sizes"]))
    c = settled(carol, ids["work_in_thread.c"])
    rep.check("work_in_thread.c: security_violation, never benchmarked", c
              and c["verdict"] == "security_violation" and c["benchmark"] is None,
              json.dumps(c)[:400] if c else "timeout")
    c = settled(carol, ids["mmap_input_cheat.c"])
    rep.check("mmap_input_cheat.c: compile_error naming `read`, never benchmarked", c
              and c["verdict"] == "compile_error" and c["benchmark"] is None
              and "defines `read`" in (c.get("compile_log") or ""),
              json.dumps(c)[:600] if c else "timeout")
    c = settled(carol, ids["mmap_input_only.c"])
    rep.check("mmap_input_only.c: security_violation (mmap), never benchmarked", c
              and c["verdict"] == "security_violation" and c["benchmark"] is None
              and any("(mmap)" in (t.get("message") or "") for t in c["tests"]),
              json.dumps(c)[:600] if c else "timeout")
    c = settled(carol, ids["mmap_input_twin.c"])
    rep.check("mmap_input_twin.c: accepted and benchmarked", c and c["verdict"] == "accepted"
              and c["benchmark"]["status"] == "done"
              and all(s["status"] in ("done", "unresolved") for s in c["benchmark"]["sizes"]),
              json.dumps(c)[:600] if c else "timeout")
    c = settled(carol, ids["fake_call_done.c"])
    meds = [s.get("median_ms") for s in ((c or {}).get("benchmark") or {}).get("sizes", [])]
    rep.check("fake_call_done.c: a forged end of call gains nothing: wrong_answer (its outputs "
              "taken before it wrote them), or measured with the work it did first (>= 5 ms)",
              c and (c["verdict"] == "wrong_answer" and c["benchmark"]["status"] == "failed"
                     or c["verdict"] == "accepted" and c["benchmark"]["status"] == "done"
                     and min(meds) >= 5),
              json.dumps(c)[:600] if c else "timeout")
    c = settled(bob, ids["wrong_at_scale.c"])
    rep.check("wrong_at_scale.c: accepted by the tests, wrong_answer from the benchmark", c
              and c["verdict"] == "wrong_answer" and c["benchmark"]["status"] == "failed"
              and c["benchmark"]["failed_size"] == SIZES[0]["name"]
              and c["benchmark"]["message"]
              and all(t["verdict"] == "accepted" for t in c["tests"]),
              json.dumps(c)[:600] if c else "timeout")

    # the leaderboard: best accepted submission per student, by geometric mean
    st, lb, _ = alice.call("GET", "/api/leaderboard/" + SLUG)
    entries = (lb or {}).get("entries", [])
    users = [e["user"] for e in entries]
    rep.check("leaderboard: alice and carol, bob's overturned verdict is not there",
              st == 200 and sorted(users) == ["alice", "carol"], json.dumps(lb)[:600])
    rep.check("leaderboard: ordered by the benchmark's geometric mean",
              [e["bench_ms"] for e in entries] == sorted(e["bench_ms"] for e in entries)
              and all(e["bench_ms"] for e in entries), json.dumps(entries)[:600])
    alice_row = next((e for e in entries if e["user"] == "alice"), None)
    rep.check("leaderboard: alice's figures per size (median, GFLOP/s, share of the peak)",
              alice_row and alice_row["bench_ms"] == honest_ms
              and [s["name"] for s in alice_row["sizes"]] == [s["name"] for s in SIZES]
              and all(s["gflops"] > 0 and s["peak_fraction"] > 0 for s in alice_row["sizes"]),
              json.dumps(alice_row))

    # a rejudge measures again (on a new connection: prof's has been idle
    # for longer than the 30 s the server keeps one open)
    prof.close()
    st, body, _ = prof.call("POST", "/api/problems/%s/rejudge" % SLUG, {})
    rep.check("rejudge the problem: 202", st == 202, json.dumps(body))
    again = settled(alice, a1, 300)
    rep.check("after the rejudge alice's first submission is benchmarked again", again
              and again["verdict"] == "accepted" and again["benchmark"]["status"] == "done"
              and again["benchmark"]["geomean_ms"] > 0, json.dumps(again)[:400])
    waiting = "SELECT count(*) FROM submissions WHERE bench_status IN ('pending', 'running')"
    left = wait_until(lambda: srv.db(waiting)[0][0] == 0, 300, 0.5)
    # the twin computes little at these sizes: its figure may be unresolved;
    # the forged end of call is wrong_answer or accepted, as its race went
    twin = ids["mmap_input_twin.c"]
    rows = srv.db("SELECT count(*) FROM submissions WHERE verdict = 'accepted'"
                  " AND bench_status = 'done' AND bench_ms > 0 AND id NOT IN (?, ?)",
                  (twin, ids["fake_call_done.c"]))
    twin_row = srv.db("SELECT verdict, bench_status FROM submissions WHERE id = ?", (twin,))
    rep.check("every benchmark of the rejudge ends, each accepted submission measured again",
              left and rows[0][0] == 6 and [tuple(r) for r in twin_row] == [("accepted", "done")],
              str(rows) + str(twin_row))
    pool_and_ties(srv, rep, alice, bob, honest, a1)


# Copies of plain_float.c that differ only in comments, layout and the
# names of locals (judge/poolkey.h): none of them buys another draw.
COPIES = [
    lambda t: t.replace("/* Accepted:", "/* My own work. Accepted:"),
    lambda t: t.replace("        float sum = 0.0f;\n", "        float sum = 0.0f; // the row's total\n"),
    lambda t: t.replace("    ", "\t").replace("\n{\n", " {\n"),
    lambda t: t.replace("sum", "total").replace("float m ", "float mx ").replace(" m = ", " mx = ")
    .replace("> m)", "> mx)").replace("- m)", "- mx)"),
    lambda t: t.replace("int rows", "int R").replace("r < rows", "r < R"),
    lambda t: t.replace("\n", "\r\n").replace("(size_t)r", "( size_t ) r"),
]


def tie_rule(entries):
    """(rank, tied) of each entry by the documented rule: an entry whose
    interval overlaps the interval of its group's first entry shares that
    rank, and both are tied; the others rank by position."""
    out, first = [], None
    for i, e in enumerate(entries):
        iv = e["bench_interval_ms"]
        if iv and first is not None and iv[0] <= first[1][1] and first[1][0] <= iv[1]:
            out.append([out[first[0]][0], True])
            out[first[0]][1] = True
        else:
            out.append([i + 1, False])
            first = (i, iv) if iv else None
    return [tuple(x) for x in out]


def pool_and_ties(srv, rep, alice, bob, honest, a1):
    """Six copies of one code, three by bob and three by alice, get alice's
    figures without a measurement; bob and alice then share a rank, tied."""
    ref = settled(alice, a1)
    if not (ref and ref["benchmark"]["status"] == "done"):
        rep.check("alice's first submission has figures to share", False, json.dumps(ref)[:300])
        return
    pooled = r"^attnjudge_benchmarks_pooled_total (\d+)$"
    before = int(re.search(pooled, metrics_text(srv), re.M).group(1))
    ids = []
    for i, edit in enumerate(COPIES):
        text = edit(honest)
        rep.check("copy %d differs from the original's bytes" % (i + 1), text != honest)
        ids.append((bob if i < 3 else alice, submit(rep, bob if i < 3 else alice,
                                                    "copy %d" % (i + 1), text)))
    got = [settled(cl, sid) for cl, sid in ids]
    rep.check("six copies: each accepted with alice's very figures (one measurement)",
              all(g and g["verdict"] == "accepted" and g["benchmark"]["status"] == "done"
                  and g["benchmark"]["geomean_ms"] == ref["benchmark"]["geomean_ms"]
                  and g["benchmark"]["sizes"] == ref["benchmark"]["sizes"] for g in got),
              json.dumps([g and g["benchmark"] for g in got])[:800])
    after = int(re.search(pooled, metrics_text(srv), re.M).group(1))
    rep.check("/metrics: the six copies were pooled, none measured", after - before == 6,
              "%d -> %d" % (before, after))
    keys = srv.db("SELECT count(DISTINCT pool_key), count(pool_key) FROM submissions"
                  " WHERE id IN (%s)" % ",".join(str(sid) for _, sid in ids + [(None, a1)]))
    rep.check("the copies and the original carry one pool key", keys == [(1, 7)], str(keys))

    st, lb, _ = alice.call("GET", "/api/leaderboard/" + SLUG)
    entries = (lb or {}).get("entries", [])
    by = {e["user"]: e for e in entries}
    a, b = by.get("alice"), by.get("bob")
    rep.check("leaderboard: every measured entry has its interval around its figure",
              st == 200 and all(e["bench_interval_ms"][0] <= e["bench_ms"]
                                <= e["bench_interval_ms"][1]
                                for e in entries if e["bench_ms"] is not None),
              json.dumps(entries)[:800])
    rep.check("leaderboard: alice and bob, one code, share a rank and are marked tied",
              a and b and a["rank"] == b["rank"] and a["tied"] is True and b["tied"] is True
              and a["bench_interval_ms"] == b["bench_interval_ms"],
              json.dumps(entries)[:800])
    rep.check("leaderboard: ranks and ties follow the overlap of the intervals",
              [(e["rank"], e["tied"]) for e in entries] == tie_rule(entries),
              json.dumps([(e["user"], e["rank"], e["tied"], e["bench_interval_ms"])
                          for e in entries]))

if __name__ == "__main__":
    sys.exit(run_scenario(sys.argv[1], "benchmark", run, problems=problems_dir, workers=2,
                          conf={"benchmark": "on", "bench_budget_ms": 1500,
                                "user_queue_max": 100}))
