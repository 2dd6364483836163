#!/usr/bin/env bash
# End-to-end tests of `attnjudge serve`: a real server on a kernel-chosen
# free loopback port (--port 0), a temporary data directory, the
# repository's problems, and curl. Prints "ok ..." / "FAIL ..." lines and
# ends with "N passed, N failed"; exits non-zero on any failure.
#
#   tests/server/run.sh [BUILD_DIR]      (default: build)
#
# The suite's parts: this file sets up (the accounts, the configuration, one
# server), then sources tests/server/sections/*.sh in order (one feature
# each, with the helpers of tests/server/lib.sh, on that one server), then
# runs the Python scenarios tests/server/*.py, each with servers of its own.
#
# With ATTNJUDGE_TEST_PG_URL set (the pg suite, tests/pg/run.sh) the same
# checks run on PostgreSQL, in a schema of their own on that server; the
# few that read SQLite's own machinery (its integrity check, a trigger
# that makes a COMMIT fail) have PostgreSQL counterparts, and so do the
# Python scenarios of the end, but for the two that are SQLite's alone.
#
# Only the server pids this script starts are ever signalled. Every wait is
# bounded.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
BIN="$BUILD/attnjudge"
SLUG=mha-fused-qkv
CORPUS="$ROOT/tests/submissions/$SLUG"
TMP=$(mktemp -d /tmp/attnjudge-server-test.XXXXXX)
chmod 711 "$TMP" # a root server runs as run_as, which must reach $TMP/data
PASS=0
FAIL=0
PID=""
URL=""
# The database: SQLite in the data directory, or a PostgreSQL schema given
# to every server (SERVE_DB) and to `attnjudge user` (USER_DB).
PG_DB=""
SERVE_DB=()
USER_DB=()
if [ -n "${ATTNJUDGE_TEST_PG_URL:-}" ]; then
    PG_DB=$(cd "$ROOT/tests/server" && /usr/bin/python3 -c 'import sys; from serverlib import pg_schema_url; print(pg_schema_url(sys.argv[1], "runsh"))' "$ATTNJUDGE_TEST_PG_URL") || {
        echo "FAIL cannot make a schema on $ATTNJUDGE_TEST_PG_URL"
        echo "0 passed, 1 failed"
        exit 1
    }
    printf 'data = %s\ndatabase = %s\n' "$TMP/data" "$PG_DB" >"$TMP/db.conf"
    SERVE_DB=(--set "database=$PG_DB")
    USER_DB=(--config "$TMP/db.conf")
fi

. "$ROOT/tests/server/lib.sh"

if [ ! -x "$BIN" ]; then
    echo "FAIL $BIN is missing (run make)"
    echo "0 passed, 1 failed"
    exit 1
fi
mkdir -p "$TMP/web/css"
echo '<!doctype html><title>attnjudge</title>' >"$TMP/web/index.html"
echo 'console.log(1);' >"$TMP/web/app.js"
echo 'body{}' >"$TMP/web/css/site.css"
echo 'secret' >"$TMP/web/.hidden"
ln -s /etc/passwd "$TMP/web/passwd-link"
cat >"$TMP/test.conf" <<'EOF'
# generous limits for the functional tests and the burst
user_queue_max = 1000
submit_burst = 1000
submit_rate_per_min = 60000
auth_burst = 1000
auth_rate_per_min = 60000
# benchmarks have their own scenario (benchmark.py)
benchmark = off
EOF

"$BIN" serve --help >/dev/null 2>&1
check "serve --help exits 0" $?
"$BIN" user --help >/dev/null 2>&1
check "user --help exits 0" $?
"$BIN" serve --config "$ROOT/deploy/attnjudge.conf" --help >/dev/null 2>"$TMP/conf.err"
check "deploy/attnjudge.conf is a valid config $(cat "$TMP/conf.err")" $?
undocumented=""
for key in $(sed -n 's/^\([a-z_]*\) =.*/\1/p' "$ROOT/deploy/attnjudge.conf"); do
    grep -q "\`$key\`" "$ROOT/docs/operations.md" || undocumented="$undocumented $key"
done
[ -z "$undocumented" ]
check "every key of deploy/attnjudge.conf is in docs/operations.md${undocumented:+ (missing:$undocumented)}" $?

# Accounts need the schema only: create the instructor before the start.
INSTR_PW=$("$BIN" user add prof --role instructor --data "$TMP/data" "${USER_DB[@]}" | sed -n 's/.*password: //p')
[ -n "$INSTR_PW" ]
check "user add prints a one-time password" $?
echo 'b0b-password' | "$BIN" user add bob --role student --data "$TMP/data" "${USER_DB[@]}" --password-stdin >/dev/null
check "user add --password-stdin" $?
"$BIN" user add bob --role student --data "$TMP/data" "${USER_DB[@]}" >/dev/null 2>"$TMP/useradd.err"
[ $? -ne 0 ] && grep -q "user passwd bob" "$TMP/useradd.err"
check "user add refuses an existing name, pointing to user passwd" $?
"$BIN" user add Me --role student --data "$TMP/data" "${USER_DB[@]}" >/dev/null 2>&1
[ $? -eq 2 ]
check "user add refuses the reserved name 'me'" $?
"$BIN" user passwd nobody-here --data "$TMP/data" "${USER_DB[@]}" >/dev/null 2>"$TMP/passwd.err"
[ $? -eq 1 ] && grep -q "no user 'nobody-here'" "$TMP/passwd.err"
check "user passwd of an unknown user fails, saying so" $?
"$BIN" user passwd bob --role student --data "$TMP/data" "${USER_DB[@]}" >/dev/null 2>&1
[ $? -eq 2 ]
check "user passwd takes no --role" $?
"$BIN" user passwd --help | grep -q "attnjudge user passwd NAME"
check "user --help describes passwd" $?

start_server a --config "$TMP/test.conf" || { echo "0 passed, 1 failed"; exit 1; }
ok "server started at $URL"
if [ -n "$PG_DB" ]; then
    [ ! -e "$TMP/data/attnjudge.db" ] && [ "$(db "SELECT count(*) FROM users WHERE username = 'prof'")" = 1 ]
    check "its database is the PostgreSQL schema: no SQLite file, the accounts are there" $?
fi

# The sections, in order, on that one server (tests/server/sections/: each
# file is one feature; later ones use the accounts the earlier ones made).
for section in health accounts csrf submissions authorization upload hidden static malformed crash sigterm backpressure proxy; do
    section_began=$SECONDS
    # shellcheck source=/dev/null
    . "$ROOT/tests/server/sections/$section.sh"
    echo "# section $section: $((SECONDS - section_began)) s"
done

# The Python scenarios, one feature each (tests/README.md says where a new
# one goes), with servers of their own (whose logs are appended to
# server.err, for the
# sanitizer check below); their counts join this suite's.
scenarios="fair_queue resources hints runs states upgrade accounts rejudge assignments drafts privacy integrity benchmark bench_queue bench_cores workers backup http_edges upload_errors grades_lms hidden_diagnosis statement_math search"
# on PostgreSQL every server a scenario starts gets a schema of its own
# (serverlib.py); upgrade.py upgrades old SQLite files and backup.py backs
# up a SQLite database: those two are SQLite's alone
[ -n "$PG_DB" ] && scenarios=$(echo "$scenarios" | sed 's/ upgrade//; s/ backup//')
for scenario in $scenarios; do
    scenario_began=$SECONDS
    ATTNJUDGE_SERVER_ERR="$TMP/server.err" /usr/bin/python3 "$ROOT/tests/server/$scenario.py" "$BIN" \
        >"$TMP/$scenario.log" 2>&1
    cat "$TMP/$scenario.log"
    echo "# scenario $scenario: $((SECONDS - scenario_began)) s"
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$TMP/$scenario.log" | tail -1)
    if [ -z "$summary" ]; then
        bad "$scenario.py printed no summary"
        continue
    fi
    PASS=$((PASS + ${summary%% passed*}))
    f=${summary#*, }
    FAIL=$((FAIL + ${f%% failed}))
done

# Under `make SANITIZE=...` the server reports memory errors on stderr.
! grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$TMP/server.err"
check "no sanitizer reports in the server's log" $?
if [ "$FAIL" -ne 0 ]; then
    echo "--- last lines of the server's log:"
    tail -20 "$TMP/server.err"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
