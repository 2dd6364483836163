#!/bin/sh
# The LTI 1.3 suite (docs/lti.md): every scenario tests/lti/*.py against a
# test platform (tests/lti/platform.py) and real servers on free loopback
# ports, each with its own temporary directory. A scenario prints "ok ..."
# / "FAIL ..." lines and "N passed, N failed"; this script sums them and
# ends with its own such line.
#
#   tests/lti/run.sh [BUILD_DIR]        (default: build)
#
# With ATTNJUDGE_TEST_PG_URL set (tests/pg/run.sh) the servers use
# PostgreSQL schemas of their own. A new scenario is a new file here; the
# modules the scenarios share (LIBS below) are not run.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
BIN="$BUILD/attnjudge"
LIBS=" platform.py ltilib.py lms_services.py "
passed=0
failed=0
if [ ! -x "$BIN" ]; then
    echo "FAIL $BIN is missing (run make)"
    echo "0 passed, 1 failed"
    exit 1
fi
out=$(mktemp /tmp/attnjudge-lti-suite.XXXXXX) || exit 1
# every server's error log, collected at its stop (serverlib.Server.stop):
# a sanitized build's reports fail the suite
errs=$(mktemp /tmp/attnjudge-lti-errs.XXXXXX) || exit 1
# The running scenario's timeout(1). It leads a process group of its own,
# which a TERM to this suite's group (tests/run-all.sh stopped) does not
# reach: passed on here, timeout passes it to the scenario, which stops its
# servers (serverlib.py) before it exits.
SCENARIO=""
stop() {
    [ -n "$SCENARIO" ] && kill -TERM "$SCENARIO" 2>/dev/null && wait "$SCENARIO" 2>/dev/null
    rm -f "$out" "$errs"
    exit 143
}
trap stop INT TERM
for f in "$ROOT"/tests/lti/*.py; do
    name=$(basename "$f")
    case "$LIBS" in *" $name "*) continue ;; esac
    echo "# tests/lti/$name"
    # (in the background and waited for, so that a TERM runs the trap at once)
    ATTNJUDGE_SERVER_ERR="$errs" timeout -k 10 900 /usr/bin/python3 "$f" "$BIN" >"$out" 2>&1 &
    SCENARIO=$!
    wait "$SCENARIO"
    status=$?
    SCENARIO=""
    grep -v ': imported ' "$out"
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    if [ -z "$summary" ]; then
        echo "FAIL tests/lti/$name printed no summary (status $status)"
        failed=$((failed + 1))
        continue
    fi
    p=$(echo "$summary" | grep -oE '^[0-9]+')
    f_=$(echo "$summary" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    passed=$((passed + p))
    failed=$((failed + f_))
done
if grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$errs"; then
    grep -B2 -A20 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$errs" | head -60
    echo "FAIL the servers' logs hold sanitizer reports"
    failed=$((failed + 1))
else
    echo "ok no sanitizer report in the servers' logs"
    passed=$((passed + 1))
fi
rm -f "$out" "$errs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
