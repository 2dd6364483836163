#!/usr/bin/python3
"""Judges every file of the submission corpus and checks its verdict.

    tests/run-corpus.py build/attnjudge [FILE.c ...]
    tests/run-corpus.py --false-rejects SECRETS --search-budget MS build/attnjudge [FILE.c ...]

The corpus is tests/submissions/<problem>/<expected-verdict>/<case>.c:
adding a case needs no code. For accepted cases it also checks the
tolerance calibration: on every test, every output element must use at most
a tenth of the tolerance (a margin of 10x), and prints the smallest margin
per problem (docs/tolerances.md records them).

Diagnosis expectations: a wrong_answer file whose header comment has a line
" * Diagnosis: <id>" must get exactly that known mistake as its diagnosis;
an accepted file must never get one. Other wrong files may (their output
may well match a known mistake).

Message expectations: a header line " * Message <test>: <text>" (continued
on following lines that start with " *   ", joined by one space) says that
test's message, in the full report, is exactly <text>: the plain words of
judge/explain.c, checked word for word.

Samples that teach: a file that is not accepted and fails a hidden test
must fail a sample test too (so that "Run samples" shows the mistake), or
say why not in a header line " * Hidden only: <reason>" (continued on lines
that start with " *   "); docs/problem-format.md, "Sample tests". The
per-problem counts are printed at the end.

Who catches a wrong file: the tests (a test fails) or the counterexample
search (every test passes, yet the verdict is wrong_answer: the search found
a failing input; docs/tolerances.md). A header line " * Caught by: tests" or
" * Caught by: search" states which, and is checked; every wrong_answer file
is reported with its catcher, and the per-problem counts are printed at the
end.

No false rejects: with --false-rejects N, only the accepted files are
judged, each under N deployment secrets with the search's budget set to MS
(much larger than a judgement's), and every one must stay accepted. The
search's worst error/tolerance ratio over its inputs is printed per problem
(smallest, median, largest over files and secrets: docs/tolerances.md
records them).

Every report: a test that ended in a fatal verdict (the vocabulary's
fatal_verdicts: no outputs to compare) has null error statistics, never
0 (docs/api.md).
"""
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARGIN = 10.0
# problem -> [wrong files caught by hidden tests, of them by a sample test
# too, of them hidden only with a stated reason]
COVERAGE = {}
COVERAGE_LOCK = threading.Lock()
# problem -> {"tests": n, "search": n}: who caught the wrong_answer files
CATCHERS = {}


def judge(binary, data, problem, path, extra=()):
    proc = subprocess.run(
        [binary, "judge", "--problem", problem, "--json", "--full", "--data", data,
         "--problems", os.path.join(ROOT, "problems"),
         "--reference", os.path.join(ROOT, "reference"), *extra, path],
        capture_output=True, text=True, timeout=900)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        report = None
    return proc.returncode, report, proc.stderr


def expected_diagnosis(path):
    """The id on a " * Diagnosis: <id>" line of the file's header comment, or None."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    header = text[:text.find("*/") + 2] if text.startswith("/*") else ""
    m = re.search(r"^ \* Diagnosis: ([a-z0-9][a-z0-9-]*)$", header, re.M)
    return m.group(1) if m else None


def expected_messages(path):
    """{test name: exact message} from the file's " * Message <test>: " lines."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    header = text[:text.find("*/") + 2] if text.startswith("/*") else ""
    out, name = {}, None
    for line in header.splitlines():
        m = re.match(r"^ \* Message ([a-z0-9][a-z0-9-]*): (.*)$", line)
        if m:
            name = m.group(1)
            out[name] = m.group(2)
        elif name and line.startswith(" *   "):
            out[name] += " " + line[5:]
        else:
            name = None
    return out


def hidden_only_reason(path):
    """The text of a " * Hidden only: <reason>" header line, or None."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    header = text[:text.find("*/") + 2] if text.startswith("/*") else ""
    m = re.search(r"^ \* Hidden only: (\S.*)$", header, re.M)
    return m.group(1) if m else None


def stated_catcher(path):
    """'tests' or 'search' from a " * Caught by: <who>" header line, or None."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    header = text[:text.find("*/") + 2] if text.startswith("/*") else ""
    m = re.search(r"^ \* Caught by: (\S.*)$", header, re.M)
    return m.group(1) if m else None


def catcher(report):
    """Who caught a wrong_answer report: 'tests' (a test failed), 'search'
    (the search found a counterexample after every test passed), or None."""
    if any(t["verdict"] not in ("accepted", "not_run") for t in report["tests"]):
        return "tests"
    if (report.get("search") or {}).get("found"):
        return "search"
    return None


def sample_coverage(report, path):
    """(caught by hidden tests, caught by samples, reason) for a wrong file."""
    def failed(kind):
        return any(t["kind"] == kind and t["verdict"] not in ("accepted", "not_run")
                   for t in report["tests"])
    return failed("hidden"), failed("sample"), hidden_only_reason(path)


def check(binary, data, verdicts, fatal, path):
    rel = os.path.relpath(path, ROOT)
    parts = rel.split(os.sep)
    problem, expected = parts[-3], parts[-2]
    if expected not in verdicts:
        return False, f"FAIL {rel}: '{expected}' is not a verdict of the judge ({', '.join(verdicts)})", None
    code, report, stderr = judge(binary, data, problem, path)
    if report is None:
        return False, f"FAIL {rel}: no JSON report (exit {code}): {stderr.strip()[:300]}", None
    got = report["verdict"]
    want_exit = 0 if expected == "accepted" else 1
    if got != expected or code != want_exit:
        bad = next((t for t in report["tests"] if t["verdict"] != "accepted"), None)
        detail = bad and f'{bad["name"]}: {bad.get("message")}'
        if got == "compile_error":
            detail = (report.get("compile_log") or "")[:300]
        return False, f"FAIL {rel}: expected {expected}, got {got} (exit {code}) {detail}", None
    got_diag = (report.get("diagnosis") or {}).get("mistake")
    want_diag = expected_diagnosis(path)
    if want_diag and expected != "wrong_answer":
        return False, f"FAIL {rel}: a Diagnosis line belongs in a wrong_answer file only", None
    if want_diag and got_diag != want_diag:
        return False, f"FAIL {rel}: expected diagnosis {want_diag}, got {got_diag}", None
    if expected == "accepted" and "diagnosis" in report:
        return False, f"FAIL {rel}: accepted, yet diagnosed as {got_diag}", None
    want_by, got_by = stated_catcher(path), None
    if want_by is not None and (expected != "wrong_answer" or want_by not in ("tests", "search")):
        return False, (f"FAIL {rel}: a Caught by line says 'tests' or 'search', in a "
                       "wrong_answer file only"), None
    if expected == "wrong_answer":
        got_by = catcher(report)
        if got_by is None:
            return False, f"FAIL {rel}: wrong_answer, yet no test failed and the search found nothing", None
        if want_by is not None and got_by != want_by:
            return False, f"FAIL {rel}: caught by the {got_by}, but its header says {want_by}", None
        with COVERAGE_LOCK:
            row = CATCHERS.setdefault(problem, {"tests": 0, "search": 0})
            row[got_by] += 1
    tests = {t["name"]: t for t in report["tests"]}
    for name, want in expected_messages(path).items():
        got_msg = tests.get(name, {}).get("message")
        if got_msg != want:
            return False, f"FAIL {rel}: test {name}: message {got_msg!r}, expected {want!r}", None
    for t in report["tests"]:
        if t["verdict"] in fatal and any(t.get(k, 0) is not None for k in
                                         ("max_abs_err", "max_rel_err", "mismatches")):
            return False, f"FAIL {rel}: test {t['name']} ({t['verdict']}) has error statistics", None
    if expected != "accepted":
        by_hidden, by_samples, reason = sample_coverage(report, path)
        with COVERAGE_LOCK:
            row = COVERAGE.setdefault(problem, [0, 0, 0])
            row[0] += by_hidden
            row[1] += by_hidden and by_samples
            row[2] += by_hidden and not by_samples and bool(reason)
        if by_hidden and not by_samples and not reason:
            return False, (f"FAIL {rel}: fails hidden tests but passes every sample test; add a "
                           "sample test that shows it, or a ' * Hidden only: <reason>' line"), None
        if by_samples and reason:
            return False, f"FAIL {rel}: a sample test fails it, so its 'Hidden only' line is stale", None
    margin = None
    if expected == "accepted":
        use, worst = max(((t.get("tolerance_use") or 0.0), test["name"])
                         for test in report["tests"] for t in test["tensors"])
        margin = 1.0 / use if use > 0 else float("inf")
        if margin < MARGIN:
            return False, f"FAIL {rel}: accepted, but with a tolerance margin of only {margin:.1f}x", margin
    note = f" (margin {margin:.0f}x, on {worst})" if margin is not None else ""
    if expected != "accepted":
        note += " (hidden only: stated)" if reason else ""
    if got_by == "search":
        found = report["search"]
        note += (f" (caught by the search in {found.get('found_ms', 0):.0f} ms at "
                 f"{found['counterexample']['dims']})")
    elif got_by:
        note += f" (caught by the {got_by})"
    if got_diag:
        note += f" (diagnosis {got_diag})"
    return True, f"ok   {rel}: {got}{note}", margin


def write_secret(data, index):
    """The corpus's fixed deployment secret number index (0: the usual one)."""
    fd = os.open(os.path.join(data, "secret.key"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, hashlib.sha256(b"attnjudge test corpus" + (b"" if index == 0 else
                                                           b" %d" % index)).digest())
    os.close(fd)


def false_rejects(binary, files, secrets, budget):
    """Every accepted file under each secret with the search at budget ms:
    accepted every time. Prints the worst ratios per problem."""
    files = [f for f in files if os.path.relpath(f, ROOT).split(os.sep)[-2] == "accepted"]
    ratios, failed = {}, 0
    with tempfile.TemporaryDirectory(prefix="attnjudge-corpus.") as top:
        datas = []
        for i in range(secrets):
            datas.append(os.path.join(top, str(i)))
            os.mkdir(datas[-1])
            write_secret(datas[-1], i)
        jobs = [(f, i) for i in range(secrets) for f in files]

        def one(job):
            path, i = job
            problem = os.path.relpath(path, ROOT).split(os.sep)[-3]
            code, report, stderr = judge(binary, datas[i], problem, path,
                                         ("--search-budget", str(budget)))
            return path, i, problem, code, report, stderr
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            for path, i, problem, code, report, stderr in pool.map(one, jobs):
                rel = os.path.relpath(path, ROOT)
                search = (report or {}).get("search") or {}
                if report is None or report["verdict"] != "accepted" or code != 0:
                    failed += 1
                    got = report and report["verdict"]
                    cx = search.get("counterexample") or {}
                    print(f"FAIL {rel} secret {i}: {got} (exit {code}) search {search.get('found')} "
                          f"at {cx.get('dims')}: {(cx.get('message') or stderr.strip())[:300]}",
                          flush=True)
                    continue
                ratios.setdefault(problem, []).append(search.get("worst_ratio", 0.0))
                print(f"ok   {rel} secret {i}: accepted, search {search.get('inputs')} inputs in "
                      f"{search.get('ms', 0):.0f} ms, worst error/tolerance "
                      f"{search.get('worst_ratio', 0.0):.3g}", flush=True)
    for problem, r in sorted(ratios.items()):
        r.sort()
        print(f"search margin {problem}: worst error/tolerance over {len(r)} runs: smallest "
              f"{r[0]:.3g}, median {r[len(r) // 2]:.3g}, largest {r[-1]:.3g}")
    print(f"{len(jobs) - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main():
    args = sys.argv[1:]
    secrets = budget = None
    while args and args[0].startswith("--"):
        if args[0] == "--false-rejects":
            secrets = int(args[1])
        elif args[0] == "--search-budget":
            budget = int(args[1])
        else:
            sys.exit(f"run-corpus.py: unknown option {args[0]}")
        args = args[2:]
    if (secrets is None) != (budget is None):
        sys.exit("run-corpus.py: --false-rejects and --search-budget go together")
    binary = os.path.abspath(args[0])
    files = args[1:]
    if not files:
        base = os.path.join(ROOT, "tests", "submissions")
        for dirpath, _, names in sorted(os.walk(base)):
            files += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".c")]
    # The verdicts are the judge's own (`attnjudge vocabulary`), never a copy.
    vocab = json.loads(subprocess.run([binary, "vocabulary"], check=True, capture_output=True,
                                      timeout=30).stdout)
    verdicts, fatal = vocab["verdicts"], set(vocab["fatal_verdicts"])
    if secrets is not None:
        return false_rejects(binary, files, secrets, budget)
    passed = failed = 0
    margins = {}
    with tempfile.TemporaryDirectory(prefix="attnjudge-corpus.") as data:
        # A fixed deployment secret, so that the hidden tests' inputs (and so
        # the verdicts and the margins) are the same on every run: a margin
        # check on fresh random inputs each time could flake.
        write_secret(data, 0)
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = pool.map(lambda f: (f, check(binary, data, verdicts, fatal, f)), files)
            for path, (ok, line, margin) in results:
                print(line, flush=True)
                if ok:
                    passed += 1
                else:
                    failed += 1
                if margin is not None:
                    problem = os.path.relpath(path, ROOT).split(os.sep)[-3]
                    margins[problem] = min(margin, margins.get(problem, float("inf")))
    for problem, margin in sorted(margins.items()):
        print(f"tolerance margin {problem}: smallest over accepted variants {margin:.0f}x")
    for problem, (hidden, samples, stated) in sorted(COVERAGE.items()):
        print(f"samples that teach {problem}: of {hidden} wrong files failing hidden tests, "
              f"{samples} fail a sample test, {stated} hidden only with a stated reason")
    for problem, row in sorted(CATCHERS.items()):
        print(f"caught {problem}: {row['tests']} wrong_answer files by the tests, "
              f"{row['search']} by the search only")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
