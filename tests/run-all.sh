#!/bin/sh
# Runs every test suite and prints one summary line, "N passed, N failed".
#
#   tests/run-all.sh BUILD_DIR
#
# Each suite prints its own lines and ends with "N passed, N failed"; this
# script adds them up. Suites: unit tests (cmocka), the judge's CLI, the
# submission corpus (every verdict and the tolerance margins), the attack
# corpus, the reference implementations against PyTorch, the HTTP server,
# and the browser tests.
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
out=$(mktemp -d /tmp/attnjudge-test.XXXXXX)
trap 'rm -rf "$out"' EXIT INT TERM
total_pass=0
total_fail=0

# run_suite NAME COMMAND...: runs a suite, shows its output, adds its counts
run_suite() {
    name=$1
    shift
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
        cat "$out/unit"
        p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$out/unit" | grep -oE '[0-9]+' | head -1)
        f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$out/unit" | grep -oE '[0-9]+' | head -1)
        if [ -z "$p" ] && [ -z "$f" ]; then
            echo "FAIL $t: no cmocka summary (crashed?)"
            f=1
        fi
        passed=$((passed + ${p:-0}))
        failed=$((failed + ${f:-0}))
    done
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# the committed .clang-format, checked on every C file (comments are not
# reflowed: the attack runner parses the attacks' header comments by line)
run_format() {
    passed=0
    failed=0
    for f in $(git ls-files '*.c' '*.h'); do
        if clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "FAIL $f is not clang-formatted (clang-format -i $f)"
        fi
    done
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

run_suite "unit tests" run_cmocka
run_suite "format" run_format
run_suite "command line" sh tests/cli/run.sh "$build/attnjudge"
run_suite "submission corpus" /usr/bin/python3 tests/run-corpus.py "$build/attnjudge"
run_suite "attack corpus" sh tests/run-attacks.sh "$build/attnjudge"
run_suite "references vs PyTorch" /usr/bin/python3 tests/torch/check_reference.py
run_suite "fuzz inputs replayed" sh tests/fuzz/run.sh "$build"
run_suite "first make on a fresh machine" sh tests/build/first-run.sh
[ -f tests/server/run.sh ] && run_suite "HTTP server" bash tests/server/run.sh "$build"
run_suite "server privileges" bash tests/server/privilege.sh "$build"
[ -f tests/browser/run.sh ] && run_suite "browser" sh tests/browser/run.sh "$build/attnjudge"

echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
