#!/bin/sh
# The database's tests against a real PostgreSQL (the pg suite).
#
#   tests/pg/run.sh BUILD_DIR
#
# Starts a throw-away cluster (tests/pg/pglib.sh), runs the cmocka binaries
# that have PostgreSQL cases — BUILD_DIR/tests/test_db (the driver) and
# BUILD_DIR/tests/test_store* (the store's cases, one binary per store file,
# each case in a schema of its own) — with ATTNJUDGE_TEST_PG_URL set, so that those cases run beside the
# SQLite ones instead of being skipped; then tests/pg/outage.py, a server on
# that cluster through a stop and start of PostgreSQL, and tests/pg/migrate.py,
# a SQLite course moved up with attnjudge migrate, tests/pg/cluster.py,
# two front ends and three judge hosts sharing no filesystem, and the HTTP
# suite (tests/server/run.sh) on PostgreSQL (when BUILD_DIR/attnjudge is built:
# make test builds it); stops the cluster, and ends with "N passed,
# N failed" (cmocka's counts and the scenario's, summed). Where PostgreSQL is not
# installed and cannot be (not root: scripts/deps.sh can only print the
# command), it says "skipped: ..." and counts nothing.
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
. tests/pg/pglib.sh

bins="$build/tests/test_db $build/tests/test_store"
for bin in "$build"/tests/test_store_*; do
    bins="$bins $bin"
done
for bin in $bins; do
    if [ ! -x "$bin" ]; then
        echo "FAIL $bin is not built (make $bin)"
        echo "0 passed, 1 failed"
        exit 1
    fi
done
if ! pg_bindir >/dev/null && [ "$(id -u)" -eq 0 ]; then
    scripts/deps.sh test >/dev/null 2>&1
fi

# The running test's timeout(1) (bounded below). It leads a process group
# of its own, which a TERM to this suite's group (tests/run-all.sh stopped)
# does not reach: passed on here, timeout passes it to the test, whose
# servers stop with it (serverlib.py); then the cluster stops.
CHILD=""
bounded() { # bounded SECONDS COMMAND...: COMMAND under timeout(1), waited for
    timeout -k 10 "$@" &
    CHILD=$!
    # (in the background and waited for, so that a TERM runs the trap at once)
    wait "$CHILD"
    status=$?
    CHILD=""
    return $status
}
trap 'pg_stop' EXIT
trap '[ -n "$CHILD" ] && kill -TERM "$CHILD" 2>/dev/null && wait "$CHILD" 2>/dev/null; exit 1' INT TERM
pg_start
rc=$?
if [ $rc -eq 2 ]; then
    echo "0 passed, 0 failed"
    exit 0
elif [ $rc -ne 0 ]; then
    echo "0 passed, 1 failed"
    exit 1
fi

passed=0
failed=0
out=$(mktemp /tmp/attnjudge-pgtest.XXXXXX)
for bin in $bins; do
    ATTNJUDGE_TEST_PG_URL=$PG_URL bounded 300 "$bin" >"$out" 2>&1
    status=$?
    cat "$out"
    p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$out" | grep -oE '[0-9]+' | head -1)
    f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$out" | grep -oE '[0-9]+' | head -1)
    s=$(grep -E '^\[  SKIPPED \] [0-9]+ test' "$out" | grep -oE '[0-9]+' | head -1)
    if [ -z "$p" ] && [ -z "$f" ]; then
        echo "FAIL $bin: no cmocka summary (crashed? status $status)"
        f=1
    elif [ "$status" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
        echo "FAIL $bin: exit status $status after its tests passed (a sanitizer report?)"
        f=1
    fi
    if [ "${s:-0}" -ne 0 ]; then
        # with a server given, nothing may be skipped
        echo "FAIL $bin: $s test(s) skipped although PostgreSQL was running"
        f=$((${f:-0} + s))
    fi
    echo "$bin: ${p:-0} passed, ${f:-0} failed"
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
done
# counted NAME COMMAND...: runs a scenario that ends with "N passed, N
# failed" and adds its counts
counted() {
    name=$1
    shift
    "$@" >"$out" 2>&1
    status=$?
    cat "$out"
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    p=$(echo "$summary" | grep -oE '^[0-9]+')
    f=$(echo "$summary" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    if [ -z "$summary" ]; then
        echo "FAIL $name printed no summary (status $status)"
        f=1
    fi
    echo "$name: ${p:-0} passed, ${f:-0} failed"
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
}

# the scenarios with servers: outage.py (PostgreSQL stopped and started
# under a running server), migrate.py (attnjudge migrate --to), cluster.py
# (two front ends and three judge hosts with data directories of their
# own), the LTI suite (tests/lti/run.sh), and the whole HTTP suite,
# tests/server/run.sh, on PostgreSQL (its
# bound: 40 min; on a busy 2-core machine, beside the command-line suites
# and a sanitized run, the SQLite pass of the same suite took 21, and a
# 15-minute bound cut the PostgreSQL pass short)
if [ -x "$build/attnjudge" ]; then
    # (cluster.py's own bound on its burst is 900 s, inside this one)
    for scenario in outage migrate cluster; do
        counted "tests/pg/$scenario.py" \
            bounded 1200 /usr/bin/python3 "tests/pg/$scenario.py" "$build/attnjudge"
    done
    counted "tests/server/run.sh on PostgreSQL" \
        bounded 2400 env ATTNJUDGE_TEST_PG_URL="$PG_URL" bash tests/server/run.sh "$build"
    counted "tests/lti/run.sh on PostgreSQL" \
        bounded 1800 env ATTNJUDGE_TEST_PG_URL="$PG_URL" sh tests/lti/run.sh "$build"
else
    echo "(the scenarios with servers not run: $build/attnjudge is not built)"
fi
rm -f "$out"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
