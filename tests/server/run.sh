#!/usr/bin/env bash
# End-to-end tests of `attnjudge serve` (issue 3, item 8): a real server on a
# kernel-chosen free loopback port (--port 0), a temporary data directory,
# the repository's problems, and curl. Prints "ok ..." / "FAIL ..." lines and
# ends with "N passed, N failed"; exits non-zero on any failure.
#
#   tests/server/run.sh [BUILD_DIR]      (default: build)
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
        --set access_log="$TMP/access.log" "$@" >"$TMP/$name.out" 2>>"$TMP/server.err" &
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

db() { # db SQL -> first column of first row, via python's sqlite3
    python3 - "$TMP/data/attnjudge.db" "$1" <<'EOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], timeout=10)
row = con.execute(sys.argv[2]).fetchone()
print(row[0] if row else "")
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
submit_burst = 1000
submit_rate_per_min = 60000
auth_burst = 1000
auth_rate_per_min = 60000
EOF

"$BIN" serve --help >/dev/null 2>&1
check "serve --help exits 0" $?
"$BIN" user --help >/dev/null 2>&1
check "user --help exits 0" $?

# Accounts need the schema only: create the instructor before the start.
INSTR_PW=$("$BIN" user add prof --role instructor --data "$TMP/data" | sed -n 's/.*password: //p')
[ -n "$INSTR_PW" ]
check "user add prints a one-time password" $?
echo 'b0b-password' | "$BIN" user add bob --role student --data "$TMP/data" --password-stdin >/dev/null
check "user add --password-stdin" $?
"$BIN" user add bob --role student --data "$TMP/data" >/dev/null 2>&1
[ $? -ne 0 ]
check "user add refuses an existing name" $?

start_server a --config "$TMP/test.conf" || { echo "0 passed, 1 failed"; exit 1; }
ok "server started at $URL"

# --- health, metrics, problems ---
req 200 "" "GET /healthz" "$URL/healthz"
[ "$(jget "$TMP/body" 'd["status"]')" = ok ]
check "healthz says ok" $?
c -o "$TMP/metrics" "$URL/metrics"
grep -q '^attnjudge_queue_depth ' "$TMP/metrics" && grep -q 'attnjudge_judge_seconds_bucket' "$TMP/metrics"
check "metrics in Prometheus text format" $?
req 200 "" "GET /api/problems" "$URL/api/problems"
[ -n "$(jget "$TMP/body" '[p for p in d["problems"] if p["slug"] == "'$SLUG'"][0]["title"]')" ]
check "problem list has $SLUG" $?
req 200 "" "GET /api/problems/$SLUG" "$URL/api/problems/$SLUG"
[ -n "$(jget "$TMP/body" 'd["statement_html"]')" ] && [ -n "$(jget "$TMP/body" 'd["starter_c"]')" ] &&
    [ "$(jget "$TMP/body" 'all("seed" not in t for t in d["tests"] if t["kind"] == "hidden")')" = True ]
check "problem detail: html, starter, no hidden seeds" $?

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
req 403 forbidden "cookie write from another origin" -X POST "$URL/api/submissions" \
    -H "Cookie: $COOKIE" -H 'Origin: http://evil.example' -H 'Content-Type: application/json' \
    -d '{"problem":"'$SLUG'","source":"int x;"}'

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
        [ "$(jget "$TMP/acc.json" 'len(d["tests"]) > 0 and all("time_ms" in t for t in d["tests"])')" = True ] &&
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
print(json.dumps({
    "problem_json": json.dumps(pj),
    "statement_md": open(f"{root}/problems/{slug}/statement.md").read(),
    "starter_c": open(f"{root}/problems/{slug}/starter.c").read(),
    "reference_c": open(f"{root}/reference/{slug}.c").read(),
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
req 400 slug_mismatch "PUT under another slug" -X PUT "$URL/api/problems/$SLUG-other" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$PKG"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["reference_c"]="void nothing(void) {}\n"; print(json.dumps(d))' "$PKG" >"$TMP/badpkg.json"
req 422 invalid_problem "a package whose reference does not compile against it" -X PUT \
    "$URL/api/problems/$SLUG-copy" -H "Authorization: Bearer $PROF" \
    -H 'Content-Type: application/json' --data-binary @"$TMP/badpkg.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["problem_json"]="{\"slug\": \"'$SLUG'-copy\", \"tests\": 7}"; print(json.dumps(d))' "$PKG" >"$TMP/badpkg2.json"
req 422 invalid_problem "a package with a broken problem.json" -X PUT \
    "$URL/api/problems/$SLUG-copy" -H "Authorization: Bearer $PROF" \
    -H 'Content-Type: application/json' --data-binary @"$TMP/badpkg2.json"
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
req 405 method_not_allowed "DELETE /api/problems/{slug}" -X DELETE "$URL/api/problems/$SLUG"
req 400 invalid_slug "bad slug in the API path" "$URL/api/problems/Bad_Slug!"
req 400 invalid_slug "dot-dot as a slug" --path-as-is "$URL/api/problems/.."
req 404 not_found "encoded traversal in the API path" "$URL/api/problems/..%2f..%2fetc%2fpasswd"
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
: >"$TMP/burst.ids"
for i in $(seq 30); do
    (c -X POST "$URL/api/submissions" -H "$A" -H "$J" --data-binary @"$TMP/burst.json" \
        -o "$TMP/burst.$i" && jget "$TMP/burst.$i" 'd["id"]' >>"$TMP/burst.ids") &
    [ "$i" -eq 20 ] && sleep 0.5
done
sleep 0.3
stop_server KILL
wait
ACCEPTED202=$(grep -c . "$TMP/burst.ids")
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
    [ "$(db "SELECT status || ':' || judgements FROM submissions WHERE id = $id")" = "done:1" ] || missing=$((missing + 1))
done <"$TMP/burst.ids"
[ $missing -eq 0 ]
check "all $ACCEPTED202 acknowledged submissions exist and were judged once" $?
[ "$(db "SELECT count(*) FROM submissions s WHERE s.id > $PRE AND (SELECT count(*) FROM test_results t WHERE t.submission_id = s.id) != json_array_length(s.report, '$.tests')")" = 0 ]
check "per-test rows are complete, none duplicated" $?
[ "$(db 'PRAGMA integrity_check')" = ok ] && [ "$(db 'PRAGMA foreign_key_check')" = "" ]
check "PRAGMA integrity_check ok, no foreign key violations" $?

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
queue_max = 1
submit_burst = 4
submit_rate_per_min = 1
EOF
start_server c --config "$TMP/tight.conf" || { bad "restart with tight limits"; echo "$PASS passed, $FAIL failed"; exit 1; }
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
grep -q '"GET /healthz" 200' "$TMP/access.log"
check "the access log has one line per request" $?
stop_server TERM
check "final SIGTERM exits 0" $?

# Under `make SANITIZE=...` the server reports memory errors on stderr.
! grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$TMP/server.err"
check "no sanitizer reports in the server's log" $?
if [ "$FAIL" -ne 0 ]; then
    echo "--- last lines of the server's log:"
    tail -20 "$TMP/server.err"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
