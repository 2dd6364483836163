#!/bin/sh
# Runs the test suites and prints one summary line, "N passed, N failed".
#
#   tests/run-all.sh BUILD_DIR [SUITE ...]    only the named suites (every suite without any)
#   tests/run-all.sh --help                   the suites' names
#   make test [SUITE="SUITE ..."]             the same, after building
#
# Each suite prints its own lines and ends with "N passed, N failed"; this
# script adds them up. The suites' names and what each checks are in usage()
# below; a new suite is one line there and one run_suite line at the end.
set -u

usage() {
    cat <<'USAGE'
usage: tests/run-all.sh BUILD_DIR [SUITE ...]

suites:
  unit        cmocka unit tests (BUILD_DIR/tests/test_*)
  format      every tracked C file is clang-formatted (one check)
  citations   every citation names a document in the repository (tests/check-repo.py)
  layers      libsandbox.a and libjudge.a use nothing of the layers above (tests/check-repo.py)
  cli         the attnjudge command line (tests/cli/run.sh)
  corpus      the submission corpus: every verdict, tolerance margins (tests/run-corpus.py)
  hints       every problem's hints and walkthrough: solution accepted, math renders (tests/run-walkthroughs.py)
  attacks     the attack corpus (tests/run-attacks.py)
  torch       the reference implementations against PyTorch (tests/torch/)
  fuzz        every kept fuzz input replayed (tests/fuzz/run.sh)
  pg          PostgreSQL: the driver, the store, a cluster of hosts and the HTTP suite (tests/pg/run.sh)
  firstmake   the first make on a machine without the packages (tests/build/first-run.sh)
  http        the HTTP server (tests/server/run.sh)
  privilege   serve started as root runs as run_as (tests/server/privilege.sh)
  browser     the web UI in headless Chromium (tests/browser/run.sh)
  deploy      deploy/: the systemd unit emulated, nginx in front, the Dockerfile, the alert rules (tests/deploy/run.sh)
USAGE
}

case "${1:-}" in
-h | --help)
    usage
    exit 0
    ;;
esac
build=${1:-build}
[ $# -gt 0 ] && shift
known=" $(usage | awk '/^  [a-z]/ { print $1 }' | tr '\n' ' ')"
for name in "$@"; do
    if ! echo "$known" | grep -qF " $name "; then
        echo "run-all: no suite named '$name'" >&2
        usage >&2
        exit 2
    fi
done
only=" $* "
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
out=$(mktemp -d /tmp/attnjudge-test.XXXXXX)
trap 'rm -rf "$out"' EXIT INT TERM
total_pass=0
total_fail=0

# run_suite NAME TITLE COMMAND...: runs a suite (if it is selected: every
# suite when none was named), shows its output, adds its counts
run_suite() {
    case "$only" in
    "  " | *" $1 "*) ;;
    *) return 0 ;;
    esac
    name=$2
    shift 2
    echo "=== $name"
    "$@" >"$out/log" 2>&1
    status=$?
    cat "$out/log"
    summary=$(grep -E '^[A-Za-z]*:? ?[0-9]+ passed, [0-9]+ failed' "$out/log" | tail -n 1)
    p=$(echo "$summary" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
    f=$(echo "$summary" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    if [ -z "$summary" ]; then
        # a suite that printed no summary counts as one failure
        p=0
        f=1
        echo "($name printed no summary line)"
    elif [ "$status" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
        f=1
        echo "($name exited with status $status)"
    fi
    total_pass=$((total_pass + ${p:-0}))
    total_fail=$((total_fail + ${f:-0}))
}

# cmocka binaries print their own format; turn it into the common line
run_cmocka() {
    passed=0
    failed=0
    for t in "$build"/tests/test_*; do
        [ -x "$t" ] || continue
        "$t" >"$out/unit" 2>&1
        status=$?
        cat "$out/unit"
        p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$out/unit" | grep -oE '[0-9]+' | head -1)
        f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$out/unit" | grep -oE '[0-9]+' | head -1)
        if [ -z "$p" ] && [ -z "$f" ]; then
            echo "FAIL $t: no cmocka summary (crashed?)"
            f=1
        elif [ "$status" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
            # every test passed, yet the binary failed: a sanitizer's report
            # (LeakSanitizer exits 23 after the summary) must not pass unseen
            echo "FAIL $t: exit status $status after its tests passed (a sanitizer report?)"
            f=1
        fi
        passed=$((passed + ${p:-0}))
        failed=$((failed + ${f:-0}))
    done
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# the committed .clang-format, checked on every C file (comments are not
# reflowed: the attack runner parses the attacks' header comments by line);
# one check, which names every file that is not formatted
run_format() {
    n=0
    bad=0
    for f in $(git ls-files '*.c' '*.h'); do
        n=$((n + 1))
        if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
            bad=$((bad + 1))
            echo "     not formatted: $f (clang-format -i $f)"
        fi
    done
    if [ "$bad" -eq 0 ]; then
        echo "ok   all $n C files are clang-formatted"
        echo "1 passed, 0 failed"
    else
        echo "FAIL $bad of $n C files are not clang-formatted (listed above)"
        echo "0 passed, 1 failed"
    fi
    [ "$bad" -eq 0 ]
}

run_suite unit "unit tests" run_cmocka
run_suite format "format" run_format
run_suite citations "citations" /usr/bin/python3 tests/check-repo.py citations
run_suite layers "layers" /usr/bin/python3 tests/check-repo.py layers "$build"
run_suite cli "command line" sh tests/cli/run.sh "$build/attnjudge"
run_suite corpus "submission corpus" /usr/bin/python3 tests/run-corpus.py "$build/attnjudge"
run_suite hints "hints and walkthroughs" /usr/bin/python3 tests/run-walkthroughs.py "$build/attnjudge"
run_suite attacks "attack corpus" /usr/bin/python3 tests/run-attacks.py "$build/attnjudge"
run_suite torch "references vs PyTorch" /usr/bin/python3 tests/torch/check_reference.py
run_suite fuzz "fuzz inputs replayed" sh tests/fuzz/run.sh "$build"
run_suite pg "PostgreSQL" sh tests/pg/run.sh "$build"
run_suite firstmake "first make on a fresh machine" sh tests/build/first-run.sh
[ -f tests/server/run.sh ] && run_suite http "HTTP server" bash tests/server/run.sh "$build"
run_suite privilege "server privileges" bash tests/server/privilege.sh "$build"
[ -f tests/browser/run.sh ] && run_suite browser "browser" sh tests/browser/run.sh "$build/attnjudge"
run_suite deploy "deployment files" bash tests/deploy/run.sh "$build"

echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
