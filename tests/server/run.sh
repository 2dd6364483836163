#!/usr/bin/env bash
# End-to-end tests of `attnjudge serve` (issue 3, item 8): a real server on a
# kernel-chosen free loopback port (--port 0), a temporary data directory,
# the repository's problems, and curl. Prints "ok ..." / "FAIL ..." lines and
# ends with "N passed, N failed"; exits non-zero on any failure.
#
#   tests/server/run.sh [BUILD_DIR]      (default: build)
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
    PG_DB=$(cd "$ROOT/tests/server" && python3 -c 'import sys; from serverlib import pg_schema_url; print(pg_schema_url(sys.argv[1], "runsh"))' "$ATTNJUDGE_TEST_PG_URL") || {
        echo "FAIL cannot make a schema on $ATTNJUDGE_TEST_PG_URL"
        echo "0 passed, 1 failed"
        exit 1
    }
    printf 'data = %s\ndatabase = %s\n' "$TMP/data" "$PG_DB" >"$TMP/db.conf"
    SERVE_DB=(--set "database=$PG_DB")
    USER_DB=(--config "$TMP/db.conf")
fi

ok() { echo "ok $*"; PASS=$((PASS + 1)); }
bad() { echo "FAIL $*"; FAIL=$((FAIL + 1)); }
check() { # check NAME CONDITION-RESULT(0/1)
    if [ "$2" -eq 0 ]; then ok "$1"; else bad "$1"; fi
}

cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -KILL "$PID" 2>/dev/null
        wait "$PID" 2>/dev/null
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT

# curl without any proxy or ~/.curlrc, with bounded time.
c() { curl -q --noproxy '*' -s --max-time 30 "$@"; }

# JSON helpers (python3 is a test dependency).
jget() { # jget FILE PYTHON-EXPR-ON-d  -> prints the value ("" if absent/error)
    python3 - "$1" "$2" <<'EOF' 2>/dev/null
import json, sys
try:
    d = json.load(open(sys.argv[1], encoding="utf-8"))
    v = eval(sys.argv[2], {"d": d})
    print("" if v is None else v)
except Exception:
    print("")
EOF
}
body_json() { # body_json SLUG FILE -> JSON body of a submission
    python3 -c 'import json,sys; print(json.dumps({"problem": sys.argv[1], "source": open(sys.argv[2], encoding="utf-8", errors="replace").read()}))' "$1" "$2"
}

# start_server NAME [extra serve args...]: sets PID and URL.
start_server() {
    local name=$1
    shift
    : >"$TMP/$name.out"
    "$BIN" serve --port 0 --data "$TMP/data" --problems "$ROOT/problems" \
        --reference "$ROOT/reference" --web "$TMP/web" \
        --set access_log="$TMP/access.log" "$@" "${SERVE_DB[@]}" >"$TMP/$name.out" \
        2>>"$TMP/server.err" &
    PID=$!
    local port=""
    for _ in $(seq 150); do
        port=$(grep -o ':[0-9]\+/' "$TMP/$name.out" 2>/dev/null | head -1 | tr -d :/)
        [ -n "$port" ] && break
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        echo "server did not start; its log:" >&2
        tail -20 "$TMP/server.err" >&2
        return 1
    fi
    URL="http://127.0.0.1:$port"
}

stop_server() { # stop_server SIGNAL -> exit status of the server
    local sig=$1 rc
    kill "-$sig" "$PID" 2>/dev/null
    for _ in $(seq 600); do
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$PID" 2>/dev/null; then
        kill -KILL "$PID" 2>/dev/null
    fi
    { wait "$PID"; } 2>/dev/null
    rc=$?
    PID=""
    return $rc
}

# req EXPECTED_STATUS EXPECTED_ERROR_CODE NAME curl-args...
# Checks the status and, for errors, the JSON error object's code.
req() {
    local want=$1 code=$2 name=$3
    shift 3
    local got
    got=$(c -o "$TMP/body" -w '%{http_code}' "$@")
    if [ "$got" != "$want" ]; then
        bad "$name: status $got, want $want ($(head -c 200 "$TMP/body"))"
        return 1
    fi
    if [ -n "$code" ]; then
        local gotcode msg
        gotcode=$(jget "$TMP/body" 'd["error"]["code"]')
        msg=$(jget "$TMP/body" 'd["error"]["message"]')
        if [ "$gotcode" != "$code" ] || [ -z "$msg" ]; then
            bad "$name: error code '$gotcode', want '$code'"
            return 1
        fi
    fi
    ok "$name"
}

signin() { # signin USER PASSWORD -> prints token
    c -X POST "$URL/api/sessions" -H 'Content-Type: application/json' \
        -d "{\"username\":\"$1\",\"password\":\"$2\"}" -o "$TMP/signin.json"
    jget "$TMP/signin.json" 'd["token"]'
}

submit() { # submit TOKEN FILE [SLUG] -> prints id
    body_json "${3:-$SLUG}" "$2" >"$TMP/sub.json"
    c -X POST "$URL/api/submissions" -H "Authorization: Bearer $1" \
        -H 'Content-Type: application/json' --data-binary @"$TMP/sub.json" -o "$TMP/subr.json"
    jget "$TMP/subr.json" 'd["id"]'
}

wait_verdict() { # wait_verdict TOKEN ID [SECONDS] -> prints verdict when done
    local deadline=$((SECONDS + ${3:-90}))
    while [ $SECONDS -lt $deadline ]; do
        c "$URL/api/submissions/$2" -H "Authorization: Bearer $1" -o "$TMP/poll.json"
        if [ "$(jget "$TMP/poll.json" 'd["status"]')" = done ]; then
            jget "$TMP/poll.json" 'd["verdict"]'
            return 0
        fi
        sleep 0.2
    done
    echo "timeout"
}

first_case() { # first_case VERDICT -> a corpus file or nothing
    ls "$CORPUS/$1"/*.c 2>/dev/null | head -1
}

db() { # db SQL -> first column of first row, via python's sqlite3 or psql
    python3 - "$TMP/data/attnjudge.db" "$1" "$PG_DB" "$ROOT/tests/server" <<'EOF'
import sqlite3, sys
if sys.argv[3]:
    sys.path.insert(0, sys.argv[4])
    from serverlib import pg_rows
    rows = pg_rows(sys.argv[3], sys.argv[2])
    row = rows[0] if rows else None
else:
    con = sqlite3.connect(sys.argv[1], timeout=10)
    row = con.execute(sys.argv[2]).fetchone()
print("" if not row or row[0] is None else row[0])
EOF
}

# ---------------------------------------------------------------------------

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

# --- health, metrics, problems ---
req 200 "" "GET /healthz" "$URL/healthz"
[ "$(jget "$TMP/body" 'd["status"]')" = ok ]
check "healthz says ok" $?
[ -n "$(jget "$TMP/body" 'd["workers"]')" ] &&
    [ "$(jget "$TMP/body" 'd["workers_running"]')" = "$(jget "$TMP/body" 'd["workers"]')" ]
check "healthz counts the workers that run" $?
c -o "$TMP/metrics" "$URL/metrics"
grep -q '^attnjudge_queue_depth ' "$TMP/metrics" && grep -q 'attnjudge_judge_seconds_bucket' "$TMP/metrics"
check "metrics in Prometheus text format" $?
req 403 forbidden "metrics refused to an anonymous client through a proxy" "$URL/metrics" \
    -H "X-Forwarded-For: 203.0.113.9"
req 200 "" "GET /api/vocabulary" "$URL/api/vocabulary"
"$BIN" vocabulary >"$TMP/vocab.cli"
[ "$(jget "$TMP/body" 'dict(d, registration=None, course_visibility=None, machine=None) == dict(__import__("json").load(open("'"$TMP/vocab.cli"'")), registration=None, course_visibility=None, machine=None)')" = True ]
check "the API's vocabulary is the judge's (attnjudge vocabulary)" $?
[ "$(jget "$TMP/body" 'd["registration"]')" = open ]
check "vocabulary: the server's registration mode (open by default)" $?
[ "$(jget "$TMP/body" 'd["verdicts"][:2] == ["accepted", "wrong_answer"] and d["test_kinds"] == ["sample", "hidden"] and "-O2" in d["compile"]["cflags"] and d["max_source_kib"] == 64')" = True ]
check "vocabulary: verdicts, test kinds, compile flags, source limit" $?
req 200 "" "GET /api/problems" "$URL/api/problems"
[ -n "$(jget "$TMP/body" '[p for p in d["problems"] if p["slug"] == "'$SLUG'"][0]["title"]')" ]
check "problem list has $SLUG" $?
"$BIN" problems --problems "$ROOT/problems" --reference "$ROOT/reference" | awk '{print $1}' >"$TMP/path.cli"
[ "$(jget "$TMP/body" '[p["slug"] for p in d["problems"]] == open("'"$TMP/path.cli"'").read().split()')" = True ]
check "GET /api/problems lists in the path order of attnjudge problems" $?
req 200 "" "GET /api/problems/$SLUG" "$URL/api/problems/$SLUG"
[ -n "$(jget "$TMP/body" 'd["statement_html"]')" ] && [ -n "$(jget "$TMP/body" 'd["starter_c"]')" ] &&
    [ "$(jget "$TMP/body" 'all("seed" not in t for t in d["tests"] if t["kind"] == "hidden")')" = True ]
check "problem detail: html, starter, no hidden seeds" $?
req 200 "" "GET /api/problems/layernorm" "$URL/api/problems/layernorm"
[ "$(jget "$TMP/body" '[p for p in d["params"] if p["name"] == "eps"] == [{"name": "eps", "type": "float", "value": 1e-5}] and "int dim, float eps)" in d["signature"] and [t.get("scalars") for t in d["tests"] if t["kind"] == "sample"] == [{"eps": 0.001}] + [{"eps": 1e-5}] * 3 and all("scalars" not in t for t in d["tests"] if t["kind"] == "hidden")')" = True ]
check "problem detail: a float parameter with its value, sample tests' scalars, none for hidden tests" $?
req 200 "" "GET /api/problems/kv-cache-decode" "$URL/api/problems/kv-cache-decode"
[ "$(jget "$TMP/body" '[p["role"] for p in d["params"] if p["name"].endswith("_cache")] == ["inout", "inout"] and "float *k_cache, float *v_cache" in d["signature"] and "scalars" not in str(d["tests"])')" = True ]
check "problem detail: in-place tensors have role inout and a non-const pointer" $?

# --- accounts ---
req 201 "" "register alice" -X POST "$URL/api/users" -H 'Content-Type: application/json' \
    -d '{"username":"alice","password":"alice-password"}'
req 409 username_taken "register alice twice" -X POST "$URL/api/users" \
    -H 'Content-Type: application/json' -d '{"username":"ALICE","password":"alice-password"}'
ALICE=$(signin alice alice-password)
[ ${#ALICE} -eq 64 ]
check "alice signs in (64-hex token)" $?
BOB=$(signin bob b0b-password)
PROF=$(signin prof "$INSTR_PW")
# user add's generated password is one-time: nothing but the change first
req 403 password_change_required "a one-time password must be changed before anything else" \
    "$URL/api/submissions" -H "Authorization: Bearer $PROF"
req 200 "" "GET /api/me says so" "$URL/api/me" -H "Authorization: Bearer $PROF"
[ "$(jget "$TMP/body" 'd["must_change_password"]')" = True ]
check "GET /api/me: must_change_password true" $?
PROF_PW=prof-password-2
req 200 "" "the instructor chooses a password" -X POST "$URL/api/users/me/password" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' \
    -d "{\"old_password\":\"$INSTR_PW\",\"new_password\":\"$PROF_PW\"}"
req 200 "" "... and the same session goes on" "$URL/api/submissions" -H "Authorization: Bearer $PROF"
req 200 "" "metrics answer an instructor through a proxy" "$URL/metrics" \
    -H "X-Forwarded-For: 203.0.113.9" -H "Authorization: Bearer $PROF"
[ ${#BOB} -eq 64 ] && [ ${#PROF} -eq 64 ]
check "bob and the instructor sign in" $?
req 200 "" "GET /api/me" "$URL/api/me" -H "Authorization: Bearer $ALICE"
[ "$(jget "$TMP/body" 'd["role"]')" = student ]
check "alice is a student" $?
c -D "$TMP/hdr" -o "$TMP/body" -X POST "$URL/api/sessions" -H 'Content-Type: application/json' \
    -d '{"username":"alice","password":"alice-password","cookie":true}'
COOKIE=$(sed -n 's/^Set-Cookie: \(attnjudge_session=[0-9a-f]*\);.*/\1/Ip' "$TMP/hdr" | tr -d '\r')
grep -qi '^Set-Cookie: attnjudge_session=.*HttpOnly.*SameSite=Strict' "$TMP/hdr" &&
    [ -z "$(jget "$TMP/body" 'd.get("token")')" ] && [ -n "$COOKIE" ]
check "cookie session: HttpOnly, SameSite=Strict, token not in the body" $?
req 200 "" "GET /api/me with the cookie" "$URL/api/me" -H "Cookie: $COOKIE"
req 403 cross_origin "cookie write from another origin" -X POST "$URL/api/submissions" \
    -H "Cookie: $COOKIE" -H 'Origin: http://evil.example' -H 'Content-Type: application/json' \
    -d '{"problem":"'$SLUG'","source":"int x;"}'

# --- CSRF: a cookie write needs this site's Origin or a JSON body ---
# (rejudge of a problem without submissions: nothing is queued)
cookie_of() { # cookie_of USER PASSWORD -> "attnjudge_session=..."
    c -D "$TMP/ck.hdr" -o /dev/null -X POST "$URL/api/sessions" -H 'Content-Type: application/json' \
        -d "{\"username\":\"$1\",\"password\":\"$2\",\"cookie\":true}"
    sed -n 's/^Set-Cookie: \(attnjudge_session=[0-9a-f]*\);.*/\1/Ip' "$TMP/ck.hdr" | tr -d '\r'
}
PCOOKIE=$(cookie_of prof "$PROF_PW")
HOSTPORT=${URL#http://}
RJ="$URL/api/problems/mha-cross/rejudge"
req 403 cross_origin "body-less cookie POST without Origin (rejudge) is refused" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE"
[ "$(jget "$TMP/body" '"Origin" in d["error"]["message"]')" = True ]
check "the refusal says what is missing" $?
req 403 cross_origin "cookie POST of a form (urlencoded, no Origin) is refused" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H 'Content-Type: application/x-www-form-urlencoded' -d 'a=1'
req 403 cross_origin "cookie POST as text/plain (no Origin) is refused" -X POST "$URL/api/submissions" \
    -H "Cookie: $COOKIE" -H 'Content-Type: text/plain' -d '{"problem":"'$SLUG'","source":"int x;"}'
req 403 cross_origin "cookie POST with Origin: null is refused" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H 'Origin: null'
req 403 cross_origin "cookie POST from another port of the same host is refused" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H "Origin: http://127.0.0.1:1"
req 403 cross_origin "a foreign Origin is refused even with a JSON body" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H 'Origin: https://evil.example' -H 'Content-Type: application/json' -d '{}'
req 202 "" "cookie POST with this site's Origin is accepted" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H "Origin: http://$HOSTPORT"
req 202 "" "cookie POST with a JSON body and no Origin is accepted" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H 'Content-Type: application/json' -d '{}'
req 202 "" "a bearer-token POST needs no Origin" -X POST "$RJ" -H "Authorization: Bearer $PROF"
req 403 cross_origin "cookie DELETE /api/sessions without Origin or JSON is refused" -X DELETE \
    "$URL/api/sessions" -H "Cookie: $PCOOKIE"
req 200 "" "... and the session is still valid" "$URL/api/me" -H "Cookie: $PCOOKIE"
req 204 "" "cookie DELETE /api/sessions with this site's Origin signs out" -X DELETE \
    "$URL/api/sessions" -H "Cookie: $PCOOKIE" -H "Origin: http://$HOSTPORT"
req 401 unauthorized "... and the session is gone" "$URL/api/me" -H "Cookie: $PCOOKIE"
grep -qi '^Set-Cookie: attnjudge_device=[0-9a-f]\{32\}\.[0-9a-f]\{64\}; Path=/api/sessions;.*HttpOnly; SameSite=Strict' "$TMP/ck.hdr" &&
    ! grep -qi '^Set-Cookie:.*Secure' "$TMP/ck.hdr"
check "sign-in sets the device cookie (HttpOnly, only for /api/sessions); no Secure without https" $?
c -o /dev/null -H 'X-Forwarded-For: 203.0.113.99' "$URL/api/xff-no-proxy"
wait_log() { # wait_log PATTERN: the access log line is written just after the response
    for _ in $(seq 50); do
        grep -q "$1" "$TMP/access.log" && return 0
        sleep 0.1
    done
    return 1
}
wait_log '127\.0\.0\.1 "GET /api/xff-no-proxy" 404'
check "without trusted_proxy, X-Forwarded-For is ignored (the access log shows the peer)" $?

# --- submissions and verdicts ---
declare -A IDS
for v in accepted wrong_answer compile_error; do
    f=$(first_case $v)
    if [ -z "$f" ]; then
        bad "corpus has no $SLUG/$v case"
        continue
    fi
    body_json "$SLUG" "$f" >"$TMP/sub.json"
    ms=$(c -X POST "$URL/api/submissions" -H "Authorization: Bearer $ALICE" -w '%{time_total}' \
        -H 'Content-Type: application/json' --data-binary @"$TMP/sub.json" -o "$TMP/subr.json")
    id=$(jget "$TMP/subr.json" 'd["id"]')
    if [ -n "$id" ] && [ "$(jget "$TMP/subr.json" 'd["status"]')" = queued ]; then
        ok "submit $v: 202 queued in ${ms} s"
    else
        bad "submit $v: $(head -c 200 "$TMP/subr.json")"
    fi
    IDS[$v]=$id
done
for v in accepted wrong_answer compile_error; do
    [ -n "${IDS[$v]:-}" ] || continue
    got=$(wait_verdict "$ALICE" "${IDS[$v]}")
    [ "$got" = "$v" ]
    check "submission ${IDS[$v]} judged $v (got $got)" $?
done
if [ -n "${IDS[compile_error]:-}" ]; then
    c "$URL/api/submissions/${IDS[compile_error]}" -H "Authorization: Bearer $ALICE" -o "$TMP/ce.json"
    [ -n "$(jget "$TMP/ce.json" 'd["compile_log"]')" ] &&
        ! grep -q '/tmp\|/work\|/home' <<<"$(jget "$TMP/ce.json" 'd["compile_log"]')"
    check "compile_error carries the compiler log without host paths" $?
fi
if [ -n "${IDS[accepted]:-}" ]; then
    c "$URL/api/submissions/${IDS[accepted]}" -H "Authorization: Bearer $ALICE" -o "$TMP/acc.json"
    [ "$(jget "$TMP/acc.json" 'd["score"]')" = 100.0 ] &&
        [ "$(jget "$TMP/acc.json" 'len(d["tests"]) > 0 and all(("time_ms" if t["kind"] == "sample" else "time_class") in t for t in d["tests"])')" = True ] &&
        [ "$(jget "$TMP/acc.json" 'd["problem_version"]')" = 1 ]
    check "accepted: score 100, per-test details, problem_version" $?
    req 200 "" "leaderboard" "$URL/api/leaderboard/$SLUG"
    [ "$(jget "$TMP/body" 'd["entries"][0]["user"]')" = alice ]
    check "alice leads the leaderboard" $?
fi
req 200 "" "GET /api/submissions?mine=1" "$URL/api/submissions?mine=1" -H "Authorization: Bearer $ALICE"
[ "$(jget "$TMP/body" 'len(d["submissions"])')" = 3 ]
check "alice sees her 3 submissions" $?

# --- authorization ---
AID=${IDS[accepted]:-1}
req 404 not_found "bob cannot read alice's submission" "$URL/api/submissions/$AID" \
    -H "Authorization: Bearer $BOB"
req 200 "" "the instructor reads alice's submission" "$URL/api/submissions/$AID" \
    -H "Authorization: Bearer $PROF"
req 200 "" "bob's list is his own" "$URL/api/submissions" -H "Authorization: Bearer $BOB"
[ "$(jget "$TMP/body" 'len(d["submissions"])')" = 0 ]
check "bob's list is empty" $?
req 403 forbidden "bob cannot list alice's submissions" "$URL/api/submissions?user=alice" \
    -H "Authorization: Bearer $BOB"
req 200 "" "instructor filters by user and verdict" \
    "$URL/api/submissions?user=alice&verdict=accepted&problem=$SLUG" -H "Authorization: Bearer $PROF"
[ "$(jget "$TMP/body" 'len(d["submissions"])')" = 1 ]
check "instructor's filter finds 1 submission" $?
req 403 forbidden "a student cannot add a problem" -X POST "$URL/api/problems" \
    -H "Authorization: Bearer $BOB" -H 'Content-Type: application/json' -d '{}'
req 403 forbidden "a student cannot rejudge" -X POST "$URL/api/problems/$SLUG/rejudge" \
    -H "Authorization: Bearer $BOB"
req 403 forbidden "a student cannot read grades" "$URL/api/grades.csv" -H "Authorization: Bearer $BOB"
req 403 forbidden "a student cannot register an instructor" -X POST "$URL/api/users" \
    -H 'Content-Type: application/json' -d '{"username":"mallory","password":"mallory-pw","role":"instructor"}'
req 200 "" "grades.csv" "$URL/api/grades.csv" -H "Authorization: Bearer $PROF"
head -1 "$TMP/body" | grep -q '^student,problem,best_score,time_of_best' && grep -q "^alice,$SLUG,100.00," "$TMP/body"
check "grades.csv has alice's best score" $?

# --- problem upload (instructors) ---
PKG="$TMP/pkg.json"
python3 - "$ROOT" "$SLUG" "$SLUG-copy" >"$PKG" <<'EOF'
import json, sys
root, slug, new = sys.argv[1:4]
pj = json.load(open(f"{root}/problems/{slug}/problem.json"))
pj["slug"] = new
pj["title"] = pj["title"] + " (copy)"
# two of its known mistakes travel with it (each is judged on upload)
pj["mistakes"] = pj.get("mistakes", [])[:2]
print(json.dumps({
    "problem_json": json.dumps(pj),
    "statement_md": open(f"{root}/problems/{slug}/statement.md").read(),
    "starter_c": open(f"{root}/problems/{slug}/starter.c").read(),
    "reference_c": open(f"{root}/reference/{slug}.c").read(),
    "mistakes": {m["id"]: open(f"{root}/problems/{slug}/mistakes/{m['id']}.c").read()
                 for m in pj["mistakes"]},
    "state": "published",  # students submit to it below (an upload is a draft by default)
}))
EOF
req 201 "" "instructor uploads a problem" -X POST "$URL/api/problems" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$PKG"
req 409 problem_exists "POST of an existing slug" -X POST "$URL/api/problems" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$PKG"
req 200 "" "PUT replaces it (version 2)" -X PUT "$URL/api/problems/$SLUG-copy" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$PKG"
[ "$(jget "$TMP/body" 'd["version"]')" = 2 ]
check "the replacement is version 2" $?
[ "$(ls "$TMP/data/problems/v2/$SLUG-copy/mistakes" | wc -l)" = 2 ]
check "the uploaded version keeps its two known mistakes' files" $?
req 400 slug_mismatch "PUT under another slug" -X PUT "$URL/api/problems/$SLUG-other" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$PKG"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["reference_c"]="void nothing(void) {}\n"; print(json.dumps(d))' "$PKG" >"$TMP/badpkg.json"
req 422 invalid_problem "a package whose reference does not compile against it" -X PUT \
    "$URL/api/problems/$SLUG-copy" -H "Authorization: Bearer $PROF" \
    -H 'Content-Type: application/json' --data-binary @"$TMP/badpkg.json"
# a reference that crashes on one hidden test: the uploader's fault, a 422
# naming the test, never a 500
python3 - "$PKG" "$TMP/crash-test" >"$TMP/crashpkg.json" <<'EOF'
import collections, json, sys
d = json.load(open(sys.argv[1]))
pj = json.loads(d["problem_json"])
seen = collections.Counter((k, v) for t in pj["tests"] for k, v in t["dims"].items())
test, (dim, value) = next((t["name"], (k, v)) for t in pj["tests"] if t["kind"] == "hidden"
                          for k, v in t["dims"].items() if seen[(k, v)] == 1)
src = d["reference_c"]
import re
body = re.search(r"\b" + pj["function"] + r"\([^;{]*\)\s*\{", src).end() - 1
d["reference_c"] = (src[:body + 1] + f"\n    if ({dim} == {value}) *(volatile int *)0 = 1;\n"
                    + src[body + 1:])
print(json.dumps(d))
print(test, file=open(sys.argv[2], "w"))
EOF
req 422 invalid_problem "a package whose reference crashes on a test" -X PUT \
    "$URL/api/problems/$SLUG-copy" -H "Authorization: Bearer $PROF" \
    -H 'Content-Type: application/json' --data-binary @"$TMP/crashpkg.json"
crash_test=$(cat "$TMP/crash-test")
[ "$(jget "$TMP/body" '"SIGSEGV" in d["error"]["message"] and "'"'$crash_test'"'" in d["error"]["message"]')" = True ]
rc=$?
check "the 422 names the test the reference crashed on ($crash_test: $(jget "$TMP/body" 'd["error"]["message"]'))" $rc
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["problem_json"]="{\"slug\": \"'$SLUG'-copy\", \"tests\": 7}"; print(json.dumps(d))' "$PKG" >"$TMP/badpkg2.json"
req 422 invalid_problem "a package with a broken problem.json" -X PUT \
    "$URL/api/problems/$SLUG-copy" -H "Authorization: Bearer $PROF" \
    -H 'Content-Type: application/json' --data-binary @"$TMP/badpkg2.json"
# An upload whose COMMIT fails is in neither the database nor the registry
# (the registry takes the version before the commit and gives it back). A
# deferred foreign key that cannot hold, added behind the server's back,
# makes exactly the COMMIT fail.
sql_exec() { # sql_exec SQL: statements, outside any transaction
    if [ -n "$PG_DB" ]; then
        (cd "$ROOT/tests/server" && python3 -c 'import sys; from serverlib import pg_rows; pg_rows(sys.argv[1], sys.argv[2])' "$PG_DB" "$1")
    else
        python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1], isolation_level=None); c.executescript(sys.argv[2]); c.close()' "$TMP/data/attnjudge.db" "$1"
    fi
}
if [ -n "$PG_DB" ]; then
    sql_exec 'CREATE TABLE test_parent (id INTEGER PRIMARY KEY);
CREATE TABLE test_child (x INTEGER REFERENCES test_parent(id) DEFERRABLE INITIALLY DEFERRED);
CREATE FUNCTION test_fail_commit() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN INSERT INTO test_child VALUES (1); RETURN NEW; END $$;
CREATE TRIGGER test_fail_commit AFTER INSERT ON problem_versions
FOR EACH ROW EXECUTE FUNCTION test_fail_commit();'
else
    sql_exec "CREATE TABLE test_parent (id INTEGER PRIMARY KEY);
CREATE TABLE test_child (x INTEGER REFERENCES test_parent(id) DEFERRABLE INITIALLY DEFERRED);
CREATE TRIGGER test_fail_commit AFTER INSERT ON problem_versions
BEGIN INSERT INTO test_child VALUES (1); END;"
fi
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); pj=json.loads(d["problem_json"]); pj["slug"]=sys.argv[2]; d["problem_json"]=json.dumps(pj); print(json.dumps(d))' "$PKG" "$SLUG-gone" >"$TMP/gonepkg.json"
req 500 internal "an upload whose commit fails answers 500" -X POST "$URL/api/problems" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$TMP/gonepkg.json"
if [ -n "$PG_DB" ]; then
    sql_exec "DROP TRIGGER test_fail_commit ON problem_versions; DROP FUNCTION test_fail_commit();
DROP TABLE test_child; DROP TABLE test_parent;"
else
    sql_exec "DROP TRIGGER test_fail_commit; DROP TABLE test_child; DROP TABLE test_parent;"
fi
c -o "$TMP/plist.json" "$URL/api/problems"
[ "$(jget "$TMP/plist.json" 'any(p["slug"] == "'$SLUG'-gone" for p in d["problems"])')" = False ] &&
    [ "$(jget "$TMP/plist.json" 'any(p["slug"] == "'$SLUG'-copy" for p in d["problems"])')" = True ] &&
    [ "$(c -o /dev/null -w '%{http_code}' "$URL/api/problems/$SLUG-gone")" = 404 ] &&
    [ "$(db "SELECT count(*) FROM problems WHERE slug = '$SLUG-gone'")" = 0 ]
check "after a failed commit the database and GET /api/problems agree: no $SLUG-gone" $?
req 201 "" "the same upload succeeds once the database accepts it" -X POST "$URL/api/problems" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$TMP/gonepkg.json"
c -o "$TMP/plist.json" "$URL/api/problems"
[ "$(jget "$TMP/plist.json" 'any(p["slug"] == "'$SLUG'-gone" and p["version"] == 1 for p in d["problems"])')" = True ]
check "GET /api/problems lists it at once, as version 1" $?
f=$(first_case accepted)
if [ -n "$f" ]; then
    cid=$(submit "$ALICE" "$f" "$SLUG-copy")
    [ "$(jget "$TMP/subr.json" 'd["problem_version"]')" = 2 ] && [ "$(wait_verdict "$ALICE" "$cid")" = accepted ]
    check "a submission to the uploaded problem is judged against version 2" $?
    req 202 "" "instructor rejudges $SLUG" -X POST "$URL/api/problems/$SLUG/rejudge" \
        -H "Authorization: Bearer $PROF"
    [ "$(jget "$TMP/body" 'd["queued"]')" = 3 ] && [ "$(wait_verdict "$ALICE" "$AID")" = accepted ]
    check "rejudge re-queues 3 submissions and judges them again" $?
fi

# progress is data, never prose: {"stage"} or {"stage": "running", "test",
# "of", "kind"}, with the stages of the vocabulary. Polled every 50 ms while
# one submission is judged (at most 30 s).
# A user and a problem of their own, so that no count below changes.
req 201 "" "register pat" -X POST "$URL/api/users" -H 'Content-Type: application/json' \
    -d '{"username":"pat","password":"pat-password"}'
PAT=$(signin pat pat-password)
pf=$(ls "$ROOT"/tests/submissions/mha-block-postln/accepted/*.c | head -1)
if [ -n "$pf" ]; then
    pid_=$(submit "$PAT" "$pf" mha-block-postln)
    : >"$TMP/progress.log"
    for _ in $(seq 600); do
        c "$URL/api/submissions/$pid_" -H "Authorization: Bearer $PAT" >>"$TMP/progress.log"
        echo >>"$TMP/progress.log"
        tail -n 1 "$TMP/progress.log" | grep -q '"status":"done"' && break
        sleep 0.05
    done
fi
python3 - "$TMP/progress.log" "$TMP/vocab.cli" <<'EOF'
import json, sys
stages = json.load(open(sys.argv[2]))["progress_stages"]
seen = [d["progress"] for d in map(json.loads, filter(str.strip, open(sys.argv[1])))
        if d["status"] == "judging"]
def ok(p):
    if p is None:
        return True
    if not isinstance(p, dict) or p.get("stage") not in stages:
        return False
    if p["stage"] != "running":
        return set(p) == {"stage"}
    return (isinstance(p.get("test"), int) and isinstance(p.get("of"), int) and 1 <= p["test"] <= p["of"]
            and p.get("kind") in ("sample", "hidden"))
bad = [p for p in seen if not ok(p)]
if bad:
    print("bad progress: %r" % bad[:3])
sys.exit(1 if bad or not any(p for p in seen) else 0)
EOF
check "progress while judging is data: stage, test i of n, kind" $?

# --- hidden tests: the author sees verdicts only, instructors everything ---
req 201 "" "register eve" -X POST "$URL/api/users" -H 'Content-Type: application/json' \
    -d '{"username":"eve","password":"eve-password"}'
EVE=$(signin eve eve-password)
for x in exfil_nan_probe exfil_input_scale exfil_exit_code; do
    xid=$(submit "$EVE" "$ROOT/tests/attacks/$x.c")
    got=$(wait_verdict "$EVE" "$xid" 120)
    [ "$got" = wrong_answer ]
    check "$x judged wrong_answer (got $got)" $?
    c "$URL/api/submissions/$xid" -H "Authorization: Bearer $EVE" -o "$TMP/$x.student"
    c "$URL/api/submissions/$xid" -H "Authorization: Bearer $PROF" -o "$TMP/$x.full"
    has=""
    [ "$x" = exfil_exit_code ] && has="exit code"
    if why=$(python3 "$ROOT/tests/cli/hidden_view.py" "$ROOT/problems/$SLUG/problem.json" \
        "$TMP/$x.student" "$TMP/$x.full" ${has:+--full-has "$has"}); then
        ok "$x: the author's view has nothing numeric about hidden tests; the instructor's has all"
    else
        bad "$x: $why"
    fi
done
[ "$(jget "$TMP/exfil_exit_code.student" '"not_run" in [t["verdict"] for t in d["tests"]] and d["verdict"] == "wrong_answer"')" = True ]
check "after a hidden runtime_error the remaining tests are not_run" $?
req 200 "" "eve lists her submissions" "$URL/api/submissions" -H "Authorization: Bearer $EVE"
[ "$(jget "$TMP/body" 'len(d["submissions"]) == 3 and all(s["time_ms"] is None for s in d["submissions"])')" = True ]
check "a student's list has no time of a submission that was not accepted" $?
req 200 "" "the instructor lists eve's submissions" "$URL/api/submissions?user=eve" \
    -H "Authorization: Bearer $PROF"
[ "$(jget "$TMP/body" 'len(d["submissions"]) == 3 and all(isinstance(s["time_ms"], float) for s in d["submissions"])')" = True ]
check "the instructor's list has every time" $?
if [ -n "${IDS[accepted]:-}" ]; then
    c "$URL/api/submissions/${IDS[accepted]}" -H "Authorization: Bearer $ALICE" -o "$TMP/acc2.json"
    [ "$(jget "$TMP/acc2.json" 'isinstance(d["time_ms"], float) and all(set(t) <= {"name", "kind", "verdict", "weight", "dims", "time_class"} for t in d["tests"] if t["kind"] == "hidden")')" = True ]
    check "an accepted submission keeps its total time (as on the leaderboard), hidden tests stay reduced" $?
fi

# --- static files ---
c -D "$TMP/hdr" -o "$TMP/body" "$URL/"
grep -qi '^Content-Type: text/html' "$TMP/hdr" && grep -q attnjudge "$TMP/body" &&
    grep -qi "^Content-Security-Policy: default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; frame-ancestors 'none'" "$TMP/hdr" &&
    grep -qi '^X-Content-Type-Options: nosniff' "$TMP/hdr"
check "GET / serves index.html with CSP and nosniff" $?
c -D "$TMP/hdr" -o /dev/null "$URL/app.js"
grep -qi '^Content-Type: text/javascript' "$TMP/hdr"
check "app.js is text/javascript" $?
c -D "$TMP/hdr" -o /dev/null "$URL/css/site.css"
grep -qi '^Content-Type: text/css' "$TMP/hdr"
check "css/site.css is text/css" $?
c -D "$TMP/hdr" -o /dev/null "$URL/api/nothing"
grep -qi '^Content-Security-Policy:' "$TMP/hdr" && grep -qi '^X-Content-Type-Options: nosniff' "$TMP/hdr"
check "error responses carry CSP and nosniff too" $?

# --- malformed requests: each gets the right 4xx and a JSON error ---
A="Authorization: Bearer $ALICE"
J='Content-Type: application/json'
req 400 bad_json "truncated JSON" -X POST "$URL/api/users" -H "$J" -d '{"username":'
req 400 bad_json "JSON array instead of object" -X POST "$URL/api/users" -H "$J" -d '[1,2]'
req 400 bad_json "empty body" -X POST "$URL/api/users" -H "$J"
req 400 invalid_request "username is a number" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":42,"password":"long-enough"}'
req 400 invalid_request "missing password" -X POST "$URL/api/users" -H "$J" -d '{"username":"carol"}'
req 400 invalid_request "unknown field" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"carol","password":"long-enough","admin":true}'
req 400 bad_json "duplicate keys" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"carol","username":"dave","password":"long-enough"}'
req 415 unsupported_media_type "no Content-Type" -X POST "$URL/api/users" \
    -H 'Content-Type:' -d '{"username":"carol","password":"long-enough"}'
req 415 unsupported_media_type "text/plain body" -X POST "$URL/api/users" \
    -H 'Content-Type: text/plain' -d '{"username":"carol","password":"long-enough"}'
req 400 invalid_username "path traversal as a username" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"../../etc/passwd","password":"long-enough"}'
req 400 weak_password "short password" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"carol","password":"short"}'
printf '{"username":"car\xff\xfeol","password":"long-enough"}' >"$TMP/bad-utf8.json"
req 400 bad_json "non-UTF-8 body" -X POST "$URL/api/users" -H "$J" --data-binary @"$TMP/bad-utf8.json"
req 400 bad_json "escaped NUL in a string" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"car\u0000ol","password":"long-enough"}'
printf '{"username":"carol\0","password":"long-enough"}' >"$TMP/nul.json"
req 400 bad_json "raw NUL byte in the body" -X POST "$URL/api/users" -H "$J" --data-binary @"$TMP/nul.json"
req 400 bad_json "lone UTF-16 surrogate" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"\ud800","password":"long-enough"}'
req 401 bad_credentials "wrong password" -X POST "$URL/api/sessions" -H "$J" \
    -d '{"username":"alice","password":"not-her-password"}'
req 401 bad_credentials "unknown user" -X POST "$URL/api/sessions" -H "$J" \
    -d '{"username":"nobody","password":"whatever-pw"}'
req 400 invalid_request "cookie is not a boolean" -X POST "$URL/api/sessions" -H "$J" \
    -d '{"username":"alice","password":"alice-password","cookie":"yes"}'
req 401 unauthorized "submit without a token" -X POST "$URL/api/submissions" -H "$J" \
    -d '{"problem":"'$SLUG'","source":"int x;"}'
req 401 unauthorized "submit with a forged token" -X POST "$URL/api/submissions" -H "$J" \
    -H "Authorization: Bearer $(printf '0%.0s' $(seq 64))" -d '{"problem":"'$SLUG'","source":"int x;"}'
req 401 unauthorized "malformed Authorization header" "$URL/api/me" -H 'Authorization: Basic YTpi'
req 400 invalid_request "source is an array" -X POST "$URL/api/submissions" -H "$A" -H "$J" \
    -d '{"problem":"'$SLUG'","source":["int x;"]}'
req 400 invalid_request "empty source" -X POST "$URL/api/submissions" -H "$A" -H "$J" \
    -d '{"problem":"'$SLUG'","source":""}'
req 400 invalid_slug "path traversal as a problem slug" -X POST "$URL/api/submissions" -H "$A" \
    -H "$J" -d '{"problem":"../../etc/passwd","source":"int x;"}'
req 404 not_found "unknown problem" -X POST "$URL/api/submissions" -H "$A" -H "$J" \
    -d '{"problem":"no-such-problem","source":"int x;"}'
head -c 3000000 /dev/zero | tr '\0' 'a' >"$TMP/huge"
req 413 payload_too_large "3 MB body with Content-Length" -X POST "$URL/api/submissions" -H "$A" \
    -H "$J" --data-binary @"$TMP/huge"
req 413 payload_too_large "3 MB chunked body" -X POST "$URL/api/submissions" -H "$A" -H "$J" \
    -H 'Transfer-Encoding: chunked' --data-binary @"$TMP/huge"
python3 -c 'import json; print(json.dumps({"problem": "'$SLUG'", "source": "/*" + "a" * 66000 + "*/"}))' >"$TMP/big-src.json"
req 413 payload_too_large "source over 64 KiB" -X POST "$URL/api/submissions" -H "$A" -H "$J" \
    --data-binary @"$TMP/big-src.json"
req 413 payload_too_large "a body on a GET route" "$URL/api/problems" -X GET -H "$J" -d '{"x":1}'
req 400 invalid_id "non-numeric submission id" "$URL/api/submissions/abc" -H "$A"
req 400 invalid_id "negative submission id" "$URL/api/submissions/-1" -H "$A"
req 404 not_found "unknown submission id" "$URL/api/submissions/99999999" -H "$A"
req 400 invalid_parameter "unknown verdict filter" "$URL/api/submissions?verdict=bogus" -H "$A"
req 400 invalid_parameter "limit=0" "$URL/api/submissions?limit=0" -H "$A"
req 400 invalid_parameter "non-UTF-8 query value" "$URL/api/submissions?user=%ff%fe" -H "$A"
req 404 not_found "unknown API route" "$URL/api/nope"
req 404 not_found "trailing slash" "$URL/api/problems/"
req 405 method_not_allowed "PATCH /api/problems" -X PATCH "$URL/api/problems"
req 405 method_not_allowed "DELETE /api/leaderboard/{slug}" -X DELETE "$URL/api/leaderboard/$SLUG"
req 400 invalid_slug "bad slug in the API path" "$URL/api/problems/Bad_Slug!"
req 400 invalid_slug "dot-dot as a slug" --path-as-is "$URL/api/problems/.."
req 400 invalid_path "encoded traversal in the API path (an encoded slash)" \
    "$URL/api/problems/..%2f..%2fetc%2fpasswd"
req 404 not_found "unknown leaderboard" "$URL/api/leaderboard/no-such-problem"
req 400 invalid_path "static path traversal" --path-as-is "$URL/../../etc/passwd"
req 400 invalid_path "encoded static path traversal" "$URL/%2e%2e/%2e%2e/etc/passwd"
req 400 invalid_path "hidden static file" "$URL/.hidden"
req 400 invalid_path "backslash in a static path" "$URL/..%5c..%5cetc%5cpasswd"
req 404 not_found "symlink out of the web directory" "$URL/passwd-link"
req 404 not_found "missing static file" "$URL/missing.js"
req 405 method_not_allowed "POST to a static path" -X POST "$URL/index.html" -H "$J" -d '{}'
req 200 "" "the server is still up after the malformed requests" "$URL/healthz"

# --- kill -9 during a burst; restart; every submission judged exactly once ---
f=$(first_case accepted)
PRE=$(db "SELECT coalesce(max(id), 0) FROM submissions")
body_json "$SLUG" "$f" >"$TMP/burst.json"
for i in $(seq 30); do
    # one file per request: nothing shared between the background writers
    (c -X POST "$URL/api/submissions" -H "$A" -H "$J" --data-binary @"$TMP/burst.json" \
        -o "$TMP/burst.$i" && jget "$TMP/burst.$i" 'd["id"]' >"$TMP/burst.$i.id") &
    [ "$i" -eq 20 ] && sleep 0.5
done
sleep 0.3
stop_server KILL
wait
cat "$TMP"/burst.*.id >"$TMP/burst.ids" 2>/dev/null
# only whole numeric ids count: a request cut off by the kill or refused
# under load (503) leaves no id, or no line at all
grep -E '^[0-9]+$' "$TMP/burst.ids" >"$TMP/burst.ok"
ACCEPTED202=$(grep -c . "$TMP/burst.ok")
[ "$ACCEPTED202" -gt 0 ]
check "burst: $ACCEPTED202 submissions answered 202 before kill -9" $?
start_server b --config "$TMP/test.conf" || { bad "restart after kill -9"; echo "$PASS passed, $FAIL failed"; exit 1; }
grep -q 'queued again' "$TMP/server.err"
check "restart re-queues the interrupted judgements" $?
deadline=$((SECONDS + 240))
while [ $SECONDS -lt $deadline ]; do
    [ "$(db "SELECT count(*) FROM submissions WHERE status != 'done'")" = 0 ] && break
    sleep 0.5
done
[ "$(db "SELECT count(*) FROM submissions WHERE status != 'done'")" = 0 ]
check "every submission is judged after the restart" $?
[ "$(db "SELECT count(*) FROM submissions WHERE judgements != 1 AND id > $PRE")" = 0 ]
check "every burst submission's verdict was recorded exactly once" $?
missing=0
while read -r id; do
    got=$(db "SELECT status || ':' || judgements FROM submissions WHERE id = $id")
    if [ "$got" != "done:1" ]; then
        missing=$((missing + 1))
        echo "  acknowledged #$id: '${got:-no such row}' (burst ids: $(tr '\n' ' ' <"$TMP/burst.ids"); newest row: $(db "SELECT max(id) FROM submissions"))"
    fi
done <"$TMP/burst.ok"
[ $missing -eq 0 ]
check "all $ACCEPTED202 acknowledged submissions exist and were judged once" $?
if [ -n "$PG_DB" ]; then
    [ "$(db "SELECT count(*) FROM submissions s WHERE s.id > $PRE AND ((s.report::json->>'verdict') IS DISTINCT FROM s.verdict OR (s.verdict != 'compile_error' AND coalesce(json_array_length(s.report::json->'tests'), 0) = 0))")" = 0 ]
else
    [ "$(db "SELECT count(*) FROM submissions s WHERE s.id > $PRE AND (json_extract(s.report, '$.verdict') IS NOT s.verdict OR (s.verdict != 'compile_error' AND coalesce(json_array_length(s.report, '$.tests'), 0) = 0))")" = 0 ]
fi
check "every report is recorded whole: its verdict is the column's, its tests are there" $?
if [ -n "$PG_DB" ]; then
    [ "$(db "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'test_results'")" = 0 ]
else
    [ "$(db "SELECT count(*) FROM sqlite_master WHERE name = 'test_results'")" = 0 ]
fi
check "no test_results table: the report JSON is the one truth for per-test results" $?
if [ -n "$PG_DB" ]; then
    # PostgreSQL enforces its foreign keys at every commit: what is left to
    # check is that no submission lost its user or problem
    [ "$(db "SELECT count(*) FROM submissions s WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = s.user_id) OR NOT EXISTS (SELECT 1 FROM problems p WHERE p.id = s.problem_id)")" = 0 ]
    check "every submission's user and problem exist" $?
else
    [ "$(db 'PRAGMA integrity_check')" = ok ] && [ "$(db 'PRAGMA foreign_key_check')" = "" ]
    check "PRAGMA integrity_check ok, no foreign key violations" $?
fi

# --- SIGTERM finishes the judgement in progress ---
tid=$(submit "$ALICE" "$f")
for _ in $(seq 100); do
    [ "$(db "SELECT status FROM submissions WHERE id = ${tid:-0}")" = judging ] && break
    sleep 0.05
done
stop_server TERM
check "SIGTERM: the server exits with status 0" $?
[ "$(db "SELECT status FROM submissions WHERE id = ${tid:-0}")" = done ]
check "SIGTERM: the judgement in progress was finished and recorded" $?

# --- backpressure: 429 per user, 503 when the queue is full ---
cat >"$TMP/tight.conf" <<'EOF'
workers = 1
benchmark = off
user_queue_max = 100
queue_max = 1
submit_burst = 4
submit_rate_per_min = 1
selftest_interval_s = 1
registration = code
class_code = course-2026
EOF
start_server c --config "$TMP/tight.conf" || { bad "restart with tight limits"; echo "$PASS passed, $FAIL failed"; exit 1; }
# registration = code: the vocabulary says so (the sign-up form then asks
# for the code), and a sign-up needs the code.
req 200 "" "GET /api/vocabulary with registration = code" "$URL/api/vocabulary"
[ "$(jget "$TMP/body" 'd["registration"]')" = code ]
check "vocabulary: registration = code" $?
req 403 invalid_class_code "sign-up without the class code" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"carol","password":"carol-password"}'
req 201 "" "sign-up with the class code" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"carol","password":"carol-password","class_code":"course-2026"}'
ALICE=$(signin alice alice-password)
codes=""
for _ in 1 2 3 4 5 6; do
    codes="$codes $(c -o "$TMP/bp.json" -D "$TMP/bp.hdr" -w '%{http_code}' -X POST "$URL/api/submissions" \
        -H "Authorization: Bearer $ALICE" -H "$J" --data-binary @"$TMP/burst.json")"
    case "$codes" in *503) grep -qi '^Retry-After: ' "$TMP/bp.hdr" && [ "$(jget "$TMP/bp.json" 'd["error"]["code"]')" = queue_full ] && echo 503ok >"$TMP/bp503" ;; esac
    case "$codes" in *429) grep -qi '^Retry-After: ' "$TMP/bp.hdr" && [ "$(jget "$TMP/bp.json" 'd["error"]["code"]')" = rate_limited ] && echo 429ok >"$TMP/bp429" ;; esac
done
[ -f "$TMP/bp503" ]
check "a full queue answers 503 queue_full with Retry-After (codes:$codes)" $?
[ -f "$TMP/bp429" ]
check "the per-user rate limit answers 429 with Retry-After" $?
# The periodic self-test checks the sandbox alone: it builds no judge
# context, so it neither reads nor creates the secret. With the secret made
# unreadable (a directory in its place) /healthz still says the sandbox is ok.
mv "$TMP/data/secret.key" "$TMP/secret.key.saved" && mkdir "$TMP/data/secret.key"
sleep 3 # three self-tests at selftest_interval_s = 1
req 200 "" "healthz after self-tests with the secret unreadable" "$URL/healthz"
[ "$(jget "$TMP/body" 'd["sandbox"]')" = ok ]
check "the self-test runs the sandbox check alone (no judge context, no secret)" $?
rmdir "$TMP/data/secret.key" && mv "$TMP/secret.key.saved" "$TMP/data/secret.key"
grep -q '"GET /healthz" 200' "$TMP/access.log"
check "the access log has one line per request" $?
stop_server TERM
check "SIGTERM exits 0" $?

# --- accounts under attack: a trusted proxy, per-account limits, public_url ---
# The server trusts 127.0.0.1 as its reverse proxy; requests "through the
# proxy" come from 127.0.0.1 with X-Forwarded-For, direct ones from other
# 127.x.y.z source addresses. Nothing refills during the test.
cat >"$TMP/attack.conf" <<'EOF'
workers = 1
benchmark = off
trusted_proxy = 127.0.0.1
public_url = https://judge.example
auth_burst = 3
auth_rate_per_min = 0.001
account_fail_burst = 3
account_fail_rate_per_min = 0.001
EOF
start_server d --config "$TMP/attack.conf" || { bad "restart with a trusted proxy"; echo "$PASS passed, $FAIL failed"; exit 1; }
try_signin() { # try_signin USER PASSWORD [curl args...] -> HTTP status; $TMP/si.hdr, $TMP/si.json
    local u=$1 p=$2
    shift 2
    c -o "$TMP/si.json" -D "$TMP/si.hdr" -w '%{http_code}' -X POST "$URL/api/sessions" -H "$J" \
        -d "{\"username\":\"$u\",\"password\":\"$p\",\"cookie\":true}" "$@"
}
fwd() { echo "X-Forwarded-For: $1"; }
limited() { # the last try_signin was a 429 rate_limited with Retry-After
    grep -qi '^Retry-After: [1-9]' "$TMP/si.hdr" && [ "$(jget "$TMP/si.json" 'd["error"]["code"]')" = rate_limited ]
}

codes=""
for i in 1 2 3 4; do codes="$codes $(try_signin "ghost$i" wrong-password -H "$(fwd 203.0.113.1)")"; done
[ "$codes" = " 401 401 401 429" ] && limited
check "behind the proxy, the per-address limit keys on X-Forwarded-For (codes:$codes)" $?
[ "$(try_signin ghost5 wrong-password -H "$(fwd 203.0.113.2)")" = 401 ]
check "another client behind the same proxy is not locked out" $?
[ "$(try_signin ghost6 wrong-password -H "X-Forwarded-For: 203.0.113.2, 203.0.113.1")" = 429 ]
check "entries a client writes into X-Forwarded-For itself are ignored" $?
codes=""
for i in 1 2 3 4; do
    codes="$codes $(try_signin "spoof$i" wrong-password --interface 127.0.0.2 -H "$(fwd "192.0.2.$i")")"
done
[ "$codes" = " 401 401 401 429" ]
check "from a peer that is not the proxy, a rotating X-Forwarded-For changes nothing (codes:$codes)" $?
c -o /dev/null -H "$(fwd 203.0.113.77)" "$URL/api/xff-trusted"
c -o /dev/null -H 'X-Forwarded-For: bogus' "$URL/api/xff-malformed"
c -o /dev/null --interface 127.0.0.3 -H "$(fwd 203.0.113.78)" "$URL/api/xff-untrusted"
wait_log '203\.0\.113\.77 "GET /api/xff-trusted" 404' &&
    wait_log '127\.0\.0\.1 "GET /api/xff-malformed" 404' &&
    wait_log '127\.0\.0\.3 "GET /api/xff-untrusted" 404'
check "the access log shows the forwarded client; the peer if malformed or untrusted" $?

# Per account: failures only, whatever the address; a known browser gets through.
[ "$(try_signin alice alice-password -H "$(fwd 198.51.100.10)")" = 200 ]
check "alice signs in through the proxy" $?
DEV=$(sed -n 's/^Set-Cookie: \(attnjudge_device=[0-9a-f.]*\);.*/\1/Ip' "$TMP/si.hdr" | tr -d '\r')
ASESS=$(sed -n 's/^Set-Cookie: \(attnjudge_session=[0-9a-f]*\);.*/\1/Ip' "$TMP/si.hdr" | tr -d '\r')
grep -qi '^Set-Cookie: attnjudge_session=.*; Secure' "$TMP/si.hdr" &&
    grep -qi '^Set-Cookie: attnjudge_device=.*; Secure' "$TMP/si.hdr" && [ -n "$DEV" ]
check "public_url https: both cookies are Secure by default" $?
codes=""
for i in 1 2 3 4 5; do codes="$codes $(try_signin bob b0b-password -H "$(fwd 198.51.100.11)")"; done
[ "$codes" = " 200 200 200 200 200" ]
check "successful sign-ins use up no limit (codes:$codes)" $?
codes=""
for i in 21 22 23 24; do codes="$codes $(try_signin alice wrong-password -H "$(fwd "198.51.100.$i")")"; done
[ "$codes" = " 401 401 401 429" ] && limited && grep -q 'failed sign-ins to this account' "$TMP/si.json"
check "rotating addresses: the 4th failure on one account is refused (codes:$codes)" $?
[ "$(try_signin ALICE wrong-password --interface 127.0.0.4)" = 429 ]
check "the account limit ignores case and applies to direct clients too" $?
[ "$(try_signin alice alice-password -H "$(fwd 198.51.100.25)")" = 429 ]
check "while the account is locked, a browser it never used must wait (the documented trade-off)" $?
[ "$(try_signin alice alice-password -H "$(fwd 198.51.100.26)" -H "Cookie: $DEV")" = 200 ]
check "alice's own browser (device cookie) still signs in during the attack" $?
[ "$(try_signin alice wrong-password -H "$(fwd 198.51.100.26)" -H "Cookie: $DEV")" = 401 ]
check "... and its typos count in its own bucket, not the locked one" $?
for i in 31 32 33; do try_signin bob wrong-password -H "$(fwd "198.51.100.$i")" >/dev/null; done
[ "$(try_signin bob b0b-password -H "$(fwd 198.51.100.34)" -H "Cookie: $DEV")" = 429 ]
check "alice's device cookie does not unlock bob's account" $?
codes=""
for i in 41 42 43 44; do codes="$codes $(try_signin no-such-user wrong-password -H "$(fwd "198.51.100.$i")")"; done
[ "$codes" = " 401 401 401 429" ]
check "an unknown username is limited the same way: no account enumeration (codes:$codes)" $?

# public_url: the Origin must be its origin, not merely match Host.
req 403 cross_origin "with public_url, an Origin matching only Host is refused" -X DELETE \
    "$URL/api/sessions" -H "Cookie: $ASESS" -H "Origin: $URL"
req 204 "" "with public_url, its origin is accepted" -X DELETE "$URL/api/sessions" \
    -H "Cookie: $ASESS" -H 'Origin: https://judge.example'
stop_server TERM
check "final SIGTERM exits 0" $?

# The fair queue and the HTTP resource controls (issue 7), hints,
# walkthroughs and ungraded runs (issue 10), `attnjudge backup` and its
# restore (backup.py), judge hosts (workers.py), the request target's
# limits (http_edges.py): Python scenarios with
# servers of their own (whose logs are appended to server.err, for the
# sanitizer check below); their counts join this suite's.
scenarios="fair_queue resources hints runs states upgrade accounts rejudge assignments drafts privacy integrity benchmark workers backup http_edges upload_errors grades_lms hidden_diagnosis statement_math"
# on PostgreSQL every server a scenario starts gets a schema of its own
# (serverlib.py); upgrade.py upgrades old SQLite files and backup.py backs
# up a SQLite database: those two are SQLite's alone
[ -n "$PG_DB" ] && scenarios=$(echo "$scenarios" | sed 's/ upgrade//; s/ backup//')
for scenario in $scenarios; do
    ATTNJUDGE_SERVER_ERR="$TMP/server.err" python3 "$ROOT/tests/server/$scenario.py" "$BIN" \
        >"$TMP/$scenario.log" 2>&1
    cat "$TMP/$scenario.log"
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
