#!/usr/bin/python3
"""Checks that a student's view of a judgement reveals nothing numeric about
hidden tests, and that the full view (instructors, `judge --full`) still
carries every measurement.

    hidden_view.py PROBLEM_JSON STUDENT_JSON FULL_JSON [--full-has TEXT]

STUDENT_JSON and FULL_JSON are `attnjudge judge --json` reports (without and
with --full) or GET /api/submissions/{id} answers (as the author and as an
instructor). Used by tests/cli/run.sh and tests/server/run.sh with the
exfiltration programs tests/attacks/exfil_*.c. Prints what is wrong and exits
1, or exits 0 silently.
"""
import decimal
import json
import re
import sys

HIDDEN_KEYS = {"name", "kind", "verdict", "weight", "dims", "time_class"}
TIME_CLASSES = {"fast", "medium", "slow"}
VERDICTS = {"accepted", "wrong_answer", "runtime_error", "time_limit", "memory_limit",
            "security_violation", "not_run"}


NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def printed_numbers(text):
    """Every number printed in text with 6 or more significant digits, as
    (value, half a unit of its last digit): the interval it stands for."""
    out = []
    for tok in NUMBER.findall(text):
        d = decimal.Decimal(tok)
        t = d.as_tuple()
        if len("".join(map(str, t.digits)).lstrip("0")) >= 6:
            out.append((d, decimal.Decimal(5).scaleb(t.exponent - 1)))
    return out


def revealed(v, numbers):
    """True when the student's view prints v to 6 or more digits: some
    number there stands for an interval that holds v. Numbers are compared
    as numbers, not as text, so 1999.317 (a compile time) does not reveal
    999.317, and the sample tests' own errors (close to the hidden ones when
    a probe writes the same value everywhere) are not mistaken for them."""
    # None: nothing was measured (a run without outputs to compare)
    if v is None or isinstance(v, str) or v != v or v in (float("inf"), float("-inf")):
        return False
    x = decimal.Decimal(repr(v))
    return any(abs(x - n) <= half for n, half in numbers)


def main():
    args = sys.argv[1:]
    full_has = None
    if "--full-has" in args:
        i = args.index("--full-has")
        full_has = args[i + 1]
        del args[i:i + 2]
    problem = json.load(open(args[0]))
    student = json.load(open(args[1]))
    # the submission's own source (API views) is the student's text, not ours
    student_text = json.dumps({k: v for k, v in student.items() if k != "source"})
    student_numbers = printed_numbers(student_text)
    full = json.load(open(args[2]))
    public = {t["name"]: t for t in problem["tests"]}
    bad = []

    hidden = [t for t in student.get("tests", []) if t.get("kind") != "sample"]
    if not hidden:
        bad.append("the student's view has no hidden test to check")
    for t in hidden:
        name = t.get("name")
        extra = set(t) - HIDDEN_KEYS
        if extra:
            bad.append("hidden test %s shows %s" % (name, sorted(extra)))
        p = public.get(name)
        if not p:
            bad.append("hidden test %r is not in problem.json" % name)
            continue
        if t.get("dims") != p["dims"] or t.get("weight") != p.get("weight", 1):
            bad.append("hidden test %s: dims or weight differ from problem.json" % name)
        if t.get("verdict") not in VERDICTS:
            bad.append("hidden test %s: verdict %r" % (name, t.get("verdict")))
        if t.get("verdict") == "not_run":
            if "time_class" in t:
                bad.append("hidden test %s did not run but has a time class" % name)
        elif t.get("time_class") not in TIME_CLASSES:
            bad.append("hidden test %s: time_class %r" % (name, t.get("time_class")))
    if student.get("time_ms") is not None and student.get("verdict") != "accepted":
        bad.append("the student's view carries time_ms %r" % student["time_ms"])

    # What the full view knows of hidden tests must not appear anywhere in
    # the student's view: messages (exit codes, signals, system calls,
    # counts) and error statistics in any printed form.
    full_hidden = [t for t in full.get("tests", []) if t.get("kind") == "hidden"]
    if not any("max_abs_err" in t for t in full_hidden):
        bad.append("the full view has no error statistics of hidden tests")
    for t in full_hidden:
        msg = t.get("message")
        if msg and msg in student_text:
            bad.append("hidden test %s: its message %r is in the student's view" % (t["name"], msg))
        for key in ("max_abs_err", "max_rel_err"):
            v = t.get(key, 0.0)
            if revealed(v, student_numbers):
                bad.append("hidden test %s: %s %r is in the student's view" % (t["name"], key, v))
    if full_has and not any(full_has in (t.get("message") or "") for t in full_hidden):
        bad.append("no hidden test's message in the full view contains %r" % full_has)
    if full_has and full_has in student_text:
        bad.append("%r is in the student's view" % full_has)

    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
