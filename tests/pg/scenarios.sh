#!/bin/sh
# The HTTP scenarios of tests/server (serverlib.py) on PostgreSQL.
#
#   tests/pg/scenarios.sh BUILD_DIR [SCENARIO ...]
#
# Starts a throw-away cluster (tests/pg/pglib.sh) and runs each scenario
# (default: every one that works on PostgreSQL) against BUILD_DIR/attnjudge
# with ATTNJUDGE_TEST_PG_URL set, so that each server serverlib starts gets a
# schema of its own on that cluster as its `database`; stops the cluster and
# ends with "N passed, N failed" (the scenarios' counts, summed). Not a
# suite of make test (about ten minutes); docs/postgresql.md §6.
#
# upgrade.py is SQLite's alone: it upgrades old SQLite files. The bash part
# of tests/server/run.sh reads the SQLite file directly and is not run here.
set -u
build=${1:-build}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
. tests/pg/pglib.sh

scenarios=${*:-"fair_queue resources hints runs states accounts rejudge assignments drafts privacy integrity benchmark workers"}
if [ ! -x "$build/attnjudge" ]; then
    echo "FAIL $build/attnjudge is not built"
    echo "0 passed, 1 failed"
    exit 1
fi
trap 'pg_stop' EXIT
trap 'exit 1' INT TERM
pg_start
rc=$?
if [ $rc -eq 2 ]; then
    echo "0 passed, 0 failed"
    exit 0
elif [ $rc -ne 0 ]; then
    echo "0 passed, 1 failed"
    exit 1
fi
ATTNJUDGE_TEST_PG_URL=$PG_URL
export ATTNJUDGE_TEST_PG_URL

passed=0
failed=0
out=$(mktemp /tmp/attnjudge-pgscen.XXXXXX)
for scenario in $scenarios; do
    echo "=== $scenario"
    timeout 900 /usr/bin/python3 "tests/server/$scenario.py" "$build/attnjudge" >"$out" 2>&1
    cat "$out"
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    p=$(echo "$summary" | grep -oE '^[0-9]+')
    f=$(echo "$summary" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    if [ -z "$summary" ]; then
        echo "FAIL $scenario.py printed no summary"
        f=1
    fi
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
done
rm -f "$out"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
