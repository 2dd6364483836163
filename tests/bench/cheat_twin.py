#!/usr/bin/python3
"""make bench: the cheat that would take the harness's per-call work off its
figure, against its honest twin (tests/server/bench-cheats/mmap_input_*.c),
each through 'attnjudge judge --bench' on softmax-stable at the package's
benchmark sizes. Printed, never asserted: tests/server/benchmark.py and
tests/attacks/ assert the verdicts.

    tests/bench/cheat_twin.py ATTNJUDGE DATA_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHEATS = os.path.join(ROOT, "tests", "server", "bench-cheats")
PROBLEM = "softmax-stable"
# the cheat; the same mapping without replacing any C library name; the twin
FILES = ("mmap_input_cheat.c", "mmap_input_only.c", "mmap_input_twin.c")


def pasted(name, tmp):
    """The cheat as one file: common.h pasted in place of its #include."""
    with open(os.path.join(CHEATS, "common.h"), encoding="utf-8") as f:
        common = f.read()
    with open(os.path.join(CHEATS, name), encoding="utf-8") as f:
        text = f.read().replace('#include "common.h"\n', common)
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def main():
    binary, data = sys.argv[1], sys.argv[2]
    print("== cheat vs honest twin (%s, judge --bench; ms per size, geometric mean)" % PROBLEM)
    with tempfile.TemporaryDirectory(prefix="attnjudge-cheat-twin.") as tmp:
        for name in FILES:
            out = subprocess.run([binary, "judge", "--problem", PROBLEM, "--bench", "--json",
                                  "--data", data, pasted(name, tmp)],
                                 capture_output=True, text=True, cwd=ROOT).stdout
            r = json.loads(out)
            b = r.get("benchmark") or {}
            sizes = " ".join("%s %s" % (s["name"], "%.1f" % s["median_ms"]
                                        if s["median_ms"] is not None else s["status"])
                             for s in b.get("sizes", []))
            why = ""
            if r["verdict"] == "compile_error":
                why = (r.get("compile_log") or "").strip().splitlines()[-1][:100]
            elif r["verdict"] != "accepted":
                why = next((t.get("message") or "" for t in r.get("tests", [])
                            if t["verdict"] == r["verdict"]), "")[:100]
            geo = b.get("geomean_ms")
            print("%-20s %-18s %s%s" % (name, r["verdict"],
                                         "geomean %.1f ms  " % geo if geo else "",
                                         sizes or why))
    print("""The cheat replaces read() and memset() and maps the input descriptor; before
the fix it measured 28.4 ms against the twin's 64.5 ms. It must be refused
(compile_error) and the mapping alone stopped (security_violation).""")


if __name__ == "__main__":
    main()
