# shellcheck shell=bash
# tests/server/lib.sh — the HTTP suite's helpers: counting checks, starting
# and stopping a server, requests and their expected answers, accounts,
# submissions and verdicts, and reading the database. Sourced by run.sh,
# which sets ROOT, BIN, TMP, PG_DB, SERVE_DB and USER_DB first.

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

# curl without any proxy or ~/.curlrc, with bounded time (longer under the
# sanitizers: the Makefile's test target sets ATTNJUDGE_TEST_HTTP_TIMEOUT_S)
c() { curl -q --noproxy '*' -s --max-time "${ATTNJUDGE_TEST_HTTP_TIMEOUT_S:-30}" "$@"; }

# JSON helpers, on Debian's python3 (a test dependency): a python3 first on
# PATH may be a version manager's shim, a few hundred ms of shell per call.
jget() { # jget FILE PYTHON-EXPR-ON-d  -> prints the value ("" if absent/error)
    /usr/bin/python3 - "$1" "$2" <<'EOF' 2>/dev/null
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
    /usr/bin/python3 -c 'import json,sys; print(json.dumps({"problem": sys.argv[1], "source": open(sys.argv[2], encoding="utf-8", errors="replace").read()}))' "$1" "$2"
}

# start_server NAME [extra serve args...]: sets PID and URL.
start_server() {
    local name=$1
    shift
    : >"$TMP/$name.out"
    "$BIN" serve --port 0 --data "$TMP/data" --problems "$ROOT/problems" \
        --reference "$ROOT/reference" --web "$TMP/web" \
        --set access_log="$TMP/access.log" --set search_budget_ms=100 "$@" "${SERVE_DB[@]}" \
        >"$TMP/$name.out" \
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
    /usr/bin/python3 - "$TMP/data/attnjudge.db" "$1" "$PG_DB" "$ROOT/tests/server" <<'EOF'
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

wait_log() { # wait_log PATTERN: the access log line is written just after the response
    for _ in $(seq 50); do
        grep -q "$1" "$TMP/access.log" && return 0
        sleep 0.1
    done
    return 1
}
