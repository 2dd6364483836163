#!/usr/bin/python3
"""Checks every problem's hints and walkthrough (problems/<slug>/hints/N.md,
problems/<slug>/walkthrough.md):

  hints        hints/1.md, 2.md, 3.md (and at most a 4.md), nothing else in
               hints/, each non-empty Markdown without code (no fenced block,
               no C statement)
  walkthrough  60-200 lines, a "common mistakes" section, and its first
               ```c block is accepted by the judge on every test
  math         every hint and the walkthrough pass web/mathcheck.mjs (KaTeX)
  secrecy      no text names a hidden test of its problem

usage: tests/run-walkthroughs.py build/attnjudge [SLUG ...]
Prints "ok"/"FAIL" lines and ends with "N passed, N failed".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIN_HINTS, MAX_HINTS = 3, 4
MIN_LINES, MAX_LINES = 60, 200

passed = 0
failed = 0


def ok(name):
    global passed
    passed += 1
    print(f"ok   {name}")


def bad(name, why):
    global failed
    failed += 1
    print(f"FAIL {name}: {why}")


def check(name, why):
    """why is None (the check passed) or the reason it failed"""
    if why is None:
        ok(name)
    else:
        bad(name, why)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def hints_problem(pdir):
    """None, or what is wrong with pdir/hints/"""
    hdir = os.path.join(pdir, "hints")
    if not os.path.isdir(hdir):
        return "no hints/ directory"
    names = sorted(os.listdir(hdir))
    n = len(names)
    want = [f"{i}.md" for i in range(1, n + 1)]
    if sorted(names, key=lambda s: (len(s), s)) != want:
        return f"hints/ holds {names}, expected 1.md .. N.md"
    if not MIN_HINTS <= n <= MAX_HINTS:
        return f"{n} hints, expected {MIN_HINTS} or {MAX_HINTS}"
    for name in want:
        text = read(os.path.join(hdir, name))
        if not text.strip():
            return f"hints/{name} is empty"
        if "```" in text or "~~~" in text:
            return f"hints/{name} has a code block (hints never give code)"
        prose = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", "", text, flags=re.S)
        for line in prose.splitlines():
            if re.search(r"\b(for|while|if)\s*\(|\w\s*(\+\+|\+=|-=)|[\w\]]\s*=[^=;]*;|\{\s*$",
                         line):
                return f"hints/{name} has a line of C: {line.strip()!r}"
    return None


def first_c_block(text):
    m = re.search(r"^```c[ \t]*\n(.*?)^```[ \t]*$", text, re.S | re.M)
    return m.group(1) if m else None


def walkthrough_problem(text):
    """None, or what is wrong with the walkthrough's text"""
    lines = text.count("\n")
    if not MIN_LINES <= lines <= MAX_LINES:
        return f"{lines} lines, expected {MIN_LINES}-{MAX_LINES}"
    if not re.search(r"^#+ .*common mistakes", text, re.I | re.M):
        return "no 'Common mistakes' section"
    if first_c_block(text) is None:
        return "no ```c block"
    return None


def judged(binary, slug, source, data, work):
    """None if source is accepted on every test, else why not"""
    path = os.path.join(work, f"{slug}.c")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    r = subprocess.run([binary, "judge", "--problem", slug, "--data", data, "--json", path],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    try:
        report = json.loads(r.stdout)
    except ValueError:
        return f"no JSON report (exit {r.returncode}): {r.stderr.strip()[:300]}"
    tests = report.get("tests", [])
    failing = [t["name"] for t in tests if t.get("verdict") != "accepted"]
    if report.get("verdict") != "accepted" or failing or not tests:
        log = (report.get("compile_log") or "").strip()[:300]
        return f"verdict {report.get('verdict')}, failing tests {failing} {log}"
    return None


def math_problem(node, files):
    """None, or the formulas KaTeX refuses"""
    errors = []
    for path in files:
        r = subprocess.run([node, os.path.join(ROOT, "web", "mathcheck.mjs"), path],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            rel = os.path.relpath(path, ROOT)
            errors.append(f"{rel}: {(r.stdout + r.stderr).strip()[:300]}")
    return "; ".join(errors) if errors else None


def hidden_names_mentioned(pdir, files):
    """None, or the hidden test names that a text gives away"""
    with open(os.path.join(pdir, "problem.json"), encoding="utf-8") as f:
        tests = json.load(f)["tests"]
    hidden = [t["name"] for t in tests if t.get("kind") == "hidden"]
    found = []
    for path in files:
        text = read(path)
        for name in hidden:
            if re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text):
                found.append(f"{os.path.basename(path)} names '{name}'")
    return "; ".join(found) if found else None


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) > 1 else 2
    binary = os.path.abspath(sys.argv[1])
    slugs = sys.argv[2:] or sorted(
        d for d in os.listdir(os.path.join(ROOT, "problems"))
        if os.path.isfile(os.path.join(ROOT, "problems", d, "problem.json")))
    node = shutil.which("node")
    work = tempfile.mkdtemp(prefix="attnjudge-walkthroughs.")
    try:
        data = os.path.join(work, "data")
        for slug in slugs:
            pdir = os.path.join(ROOT, "problems", slug)
            check(f"{slug}: hints 1..3 (or 4), prose only", hints_problem(pdir))
            wpath = os.path.join(pdir, "walkthrough.md")
            if not os.path.isfile(wpath):
                bad(f"{slug}: walkthrough", "no walkthrough.md")
                continue
            text = read(wpath)
            check(f"{slug}: walkthrough shape", walkthrough_problem(text))
            source = first_c_block(text)
            if source is None:
                bad(f"{slug}: walkthrough solution accepted", "no ```c block")
            else:
                check(f"{slug}: walkthrough solution accepted",
                      judged(binary, slug, source, data, work))
            hdir = os.path.join(pdir, "hints")
            files = [wpath] + (sorted(os.path.join(hdir, n) for n in os.listdir(hdir))
                               if os.path.isdir(hdir) else [])
            if node is None:
                bad(f"{slug}: math renders", "node is not installed (scripts/deps.sh)")
            else:
                check(f"{slug}: math renders ({len(files)} files)", math_problem(node, files))
            check(f"{slug}: no hidden test named", hidden_names_mentioned(pdir, files))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
