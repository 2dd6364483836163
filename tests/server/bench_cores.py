"""The benchmark core (docs/performance.md, "Interference"): a server told
`bench_cpu = N` runs every thread on the other cores, and moves the one
thread benchmarking, with the sandboxes it creates, to core N for the
benchmark's length.

- the start-up line names the benchmark core and the judging cores;
- while a benchmark runs, its sandboxed processes are on the benchmark core
  alone, and every other thread of the server (HTTP, keeper, workers) on
  the judging cores;
- once it is done, every thread is back on the judging cores;
- a core this process may not use is refused at start, in one line.

    python3 tests/server/bench_cores.py BUILD_DIR/attnjudge
"""
import os
import subprocess
import sys
import shutil
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, Server, run_scenario, source, wait_until  # noqa: E402

SLUG = "softmax-stable"
CORES = sorted(os.sched_getaffinity(0))
BENCH_CPU = CORES[-1]


def cores_list(cores):
    """"0-2,5" as /proc shows Cpus_allowed_list, from a sorted list."""
    out, i = [], 0
    while i < len(cores):
        j = i
        while j + 1 < len(cores) and cores[j + 1] == cores[j] + 1:
            j += 1
        out.append(str(cores[i]) if i == j else "%d-%d" % (cores[i], cores[j]))
        i = j + 1
    return ",".join(out)


def allowed(path):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("Cpus_allowed_list:"):
                    return line.split()[1]
    except OSError:
        return None
    return None


def threads(pid):
    """{tid: Cpus_allowed_list} of the process's threads."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        a = allowed("/proc/%d/task/%s/status" % (pid, tid))
        if a:
            out[int(tid)] = a
    return out


def descendants(pid):
    """The pids below pid (the sandboxes' processes), from /proc's PPid."""
    parent = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/status" % name) as f:
                    for line in f:
                        if line.startswith("PPid:"):
                            parent[int(name)] = int(line.split()[1])
                            break
            except OSError:
                pass
    below, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier} - below
        below |= frontier
    return below


def run(srv, rep):
    judging = cores_list(CORES[:-1])
    out = open(os.path.join(srv.dir, "server.out")).read()
    rep.check("the start-up line names the benchmark core and the judging cores",
              "benchmarks on core %d, judging on cores %s" % (BENCH_CPU, judging) in out,
              out[-300:])
    before = threads(srv.proc.pid)
    rep.check("every thread of the server starts on the judging cores (%s)" % judging,
              before and all(a == judging for a in before.values()), str(before))

    c = srv.client()
    c.sign_up("alice")
    st, body, _ = c.submit(SLUG, source("tests/submissions/%s/accepted/plain_float.c" % SLUG))
    rep.check("an accepted submission is queued", st == 202, str(body))
    sid = body["id"]

    seen_sandbox, seen_threads, bad = set(), set(), []

    def status():
        sub = c.call("GET", "/api/submissions/%d" % sid)[1] or {}
        return (sub.get("benchmark") or {}).get("status")

    def sample():
        """One look during the benchmark: the sandboxes' cores and the
        server's threads' cores, counted only when the benchmark was
        running both before and after the look (the thread is on the
        benchmark core from before its claim to after its figures)."""
        before = status()
        if before != "running":
            return before in ("done", "failed")
        ts = threads(srv.proc.pid)
        cores = {allowed("/proc/%d/status" % pid) for pid in descendants(srv.proc.pid)}
        if status() != "running":
            return False
        seen_sandbox.update(cores - {None})
        on_bench = [t for t, a in ts.items() if a == str(BENCH_CPU)]
        others = [a for t, a in ts.items() if a != str(BENCH_CPU)]
        seen_threads.add(len(on_bench))
        if any(a != judging for a in others):
            bad.append(ts)
        return False

    ended = wait_until(sample, 300, 0.05)
    sub = c.call("GET", "/api/submissions/%d" % sid)[1]
    rep.check("the benchmark ends done", ended and sub["benchmark"]["status"] == "done",
              str(sub.get("benchmark"))[:300])
    rep.check("while it ran, its sandboxes were on core %d alone" % BENCH_CPU,
              seen_sandbox == {str(BENCH_CPU)}, str(seen_sandbox))
    rep.check("while it ran, one thread of the server was on core %d" % BENCH_CPU,
              seen_threads == {1}, str(seen_threads))
    rep.check("while it ran, every other thread stayed on the judging cores",
              not bad, str(bad[:2]))
    after = wait_until(lambda: all(a == judging for a in threads(srv.proc.pid).values()), 10)
    rep.check("after it, every thread is back on the judging cores", after,
              str(threads(srv.proc.pid)))


def refused(binary, rep):
    """bench_cpu naming a core this process may not use: refused in one line."""
    tmp = tempfile.mkdtemp(prefix="attnjudge-bench-cores.")
    os.chmod(tmp, 0o711)
    outside = max(CORES) + 1
    srv = Server(binary, tmp, "refused", conf={"benchmark": "on", "bench_cpu": outside})
    srv.write_conf()
    try:
        r = subprocess.run(
            [binary, "serve", "--port", "0", "--data", srv.data, "--problems",
             os.path.join(ROOT, "problems"), "--config", os.path.join(srv.dir, "serve.conf")],
            capture_output=True, text=True, timeout=120)
        lines = r.stderr.strip().splitlines()
        want = "attnjudge: bench_cpu: core %d is not one this process may use (cores %s)" % (
            outside, cores_list(CORES))
        rep.check("bench_cpu = %d on cores %s: the server refuses to start, in one line"
                  % (outside, cores_list(CORES)),
                  r.returncode != 0 and lines and lines[-1] == want, repr(r.stderr[-300:]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    binary = sys.argv[1]
    if len(CORES) < 2:
        print("FAIL this scenario needs two cores to keep one for benchmarks (has %d)"
              % len(CORES))
        print("0 passed, 1 failed")
        return 1

    def both(srv, rep):
        run(srv, rep)
        refused(binary, rep)
    # the sandbox's periodic self-test runs from the main thread, on the
    # judging cores: put off past the scenario's end, so that every process
    # below the server during the benchmark is the benchmark's
    return run_scenario(binary, "bench-cores", both, workers=1,
                        conf={"benchmark": "on", "bench_cpu": BENCH_CPU, "bench_budget_ms": 300,
                              "selftest_interval_s": 86400})


if __name__ == "__main__":
    sys.exit(main())
