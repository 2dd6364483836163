#!/usr/bin/env bash
# `attnjudge serve` started as root gives root up (issue 7, item 8):
# it binds its port (here one below 1024) and takes its data directory as
# root, then runs as run_as (attnjudge) — root only of a user namespace of
# its own that maps run_as and nobody, holding CAP_SETUID and CAP_SETGID
# there alone — while its sandboxes run as nobody, who can read neither
# the data directory nor the secret (docs/operations.md, "Privileges").
#
#   tests/server/privilege.sh [BUILD_DIR]
#
# Needs root (prints "0 passed, 0 failed" otherwise). Loopback only; only
# the server pids it starts are signalled; every wait is bounded.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
BIN="$BUILD/attnjudge"
SLUG=mha-fused-qkv
PASS=0
FAIL=0
PID=""
ok() { echo "ok $*"; PASS=$((PASS + 1)); }
bad() { echo "FAIL $*"; FAIL=$((FAIL + 1)); }
check() { if [ "$2" -eq 0 ]; then ok "$1"; else bad "$1"; fi; }
c() { curl -q --noproxy '*' -s --max-time 30 "$@"; }

if [ "$(id -u)" -ne 0 ]; then
    echo "skipped: not root (the server drops privileges only when started as root)"
    echo "0 passed, 0 failed"
    exit 0
fi
if ! getent passwd attnjudge >/dev/null; then
    echo "FAIL no user attnjudge (scripts/deps.sh creates it as root)"
    echo "0 passed, 1 failed"
    exit 1
fi
A_UID=$(id -u attnjudge)
A_GID=$(id -g attnjudge)
TMP=$(mktemp -d /tmp/attnjudge-privilege.XXXXXX)
chmod 711 "$TMP" # run_as must reach $TMP/data by name
cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -KILL "$PID" 2>/dev/null
        wait "$PID" 2>/dev/null
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT

# 1. wrong run_as settings stop the start with status 2 and a message
for bad_user in no-such-user-7x nobody; do
    "$BIN" serve --port 0 --data "$TMP/d-$bad_user" --problems "$ROOT/problems" \
        --set run_as="$bad_user" >/dev/null 2>"$TMP/err"
    status=$?
    if [ "$status" -eq 2 ] && grep -q 'run_as' "$TMP/err"; then
        ok "run_as = $bad_user is refused with status 2: $(head -c 90 "$TMP/err")..."
    else
        bad "run_as = $bad_user is refused with status 2 (status $status: $(cat "$TMP/err"))"
    fi
done

# a root-owned directory holding files attnjudge did not make (data = /etc
# by mistake) is not handed over
mkdir -m 755 "$TMP/foreign"
echo 'root:x:0:0::/root:/bin/sh' >"$TMP/foreign/passwd"
"$BIN" serve --port 0 --data "$TMP/foreign" --problems "$ROOT/problems" >/dev/null 2>"$TMP/err"
status=$?
if [ "$status" -ne 0 ] && grep -q "did not create" "$TMP/err" &&
    [ "$(stat -c '%U %a' "$TMP/foreign/passwd")" = "root 644" ] &&
    [ "$(stat -c '%U' "$TMP/foreign")" = root ]; then
    ok "a root directory with foreign files (data = /etc by mistake) is not handed over"
else
    bad "a root directory with foreign files is not handed over (status $status: $(cat "$TMP/err"))"
fi

# 2. a data directory root made (user add as root) is handed over at start
echo 'stu-password-1' | "$BIN" user add stu --role student --data "$TMP/data" \
    --password-stdin >/dev/null
[ "$(stat -c %U "$TMP/data/attnjudge.db")" = root ]
check "before the start, root's user add left a root-owned database" $?

# a free port below 1024, which only root may bind
LOW=$(python3 - <<'EOF'
import random, socket
for p in random.sample(range(600, 1024), 200):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
        print(p)
        break
    except OSError:
        pass
    finally:
        s.close()
EOF
)
"$BIN" serve --port "$LOW" --data "$TMP/data" --problems "$ROOT/problems" \
    --reference "$ROOT/reference" --web "$TMP/no-web" --workers 1 \
    --set access_log="$TMP/access.log" --set shutdown_grace_s=0 >"$TMP/out" 2>"$TMP/server.err" &
PID=$!
for _ in $(seq 150); do
    grep -q listening "$TMP/out" 2>/dev/null && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
done
if ! grep -q "listening on http://127.0.0.1:$LOW/" "$TMP/out"; then
    bad "the server starts on port $LOW (below 1024); its log:"
    tail -5 "$TMP/server.err"
    echo "$PASS passed, $((FAIL + 1)) failed"
    exit 1
fi
ok "the server binds port $LOW, below 1024, before giving root up"
URL="http://127.0.0.1:$LOW"

# 3. the running server is run_as, with no capability outside its namespace
st=/proc/$PID/status
[ "$(awk '/^Uid:/ {print $2, $3, $4, $5}' "$st")" = "$A_UID $A_UID $A_UID $A_UID" ]
check "real, effective, saved and fs uid are attnjudge's ($A_UID)" $?
[ "$(awk '/^Gid:/ {print $2, $3, $4, $5}' "$st")" = "$A_GID $A_GID $A_GID $A_GID" ]
check "every gid is attnjudge's ($A_GID)" $?
[ -z "$(awk '/^Groups:/ {print $2}' "$st")" ]
check "no supplementary groups" $?
[ "$(awk '/^CapEff:/ {print $2}' "$st")" = 00000000000000c0 ] &&
    [ "$(awk '/^CapBnd:/ {print $2}' "$st")" = 00000000000000c0 ]
check "capabilities: CAP_SETUID and CAP_SETGID only, bounding set included" $?
[ "$(readlink /proc/$PID/ns/user)" != "$(readlink /proc/self/ns/user)" ]
check "...held in a user namespace of its own, not the host's" $?
[ "$(awk '{print $1, $2, $3}' /proc/$PID/uid_map | tr '\n' ';')" = "0 $A_UID 1;65534 65534 1;" ]
check "that namespace maps only attnjudge (as its root) and nobody" $?

# 4. the data directory and the secret are attnjudge's alone
[ "$(stat -c '%U %a' "$TMP/data")" = "attnjudge 700" ]
check "data directory: attnjudge, 0700" $?
[ "$(stat -c '%U %a' "$TMP/data/secret.key")" = "attnjudge 600" ]
check "secret.key: attnjudge, 0600" $?
[ "$(stat -c %U "$TMP/data/attnjudge.db")" = attnjudge ]
check "root's database was handed to attnjudge" $?
[ -z "$(find "$TMP/data" ! -user attnjudge)" ]
check "nothing in the data directory is left to another owner" $?
[ -z "$(find "$TMP/data" ! -type l -perm /077)" ]
check "nothing in it is open to group or others (root's database was 0644)" $?
setpriv --reuid=65534 --regid=65534 --clear-groups cat "$TMP/data/secret.key" >/dev/null 2>&1
[ $? -ne 0 ]
check "nobody (the sandboxes' user) cannot read secret.key" $?
setpriv --reuid=65534 --regid=65534 --clear-groups ls "$TMP/data" >/dev/null 2>&1
[ $? -ne 0 ]
check "nobody cannot list the data directory" $?

# 5. a submission's sandbox runs as nobody
TOKEN=$(c -X POST "$URL/api/sessions" -H 'Content-Type: application/json' \
    --data-binary '{"username":"stu","password":"stu-password-1"}' |
    python3 -c 'import json,sys; print(json.load(sys.stdin).get("token",""))' 2>/dev/null)
python3 -c 'import json,sys; print(json.dumps({"problem": sys.argv[1], "source": open(sys.argv[2]).read()}))' \
    "$SLUG" "$ROOT/tests/attacks/sleep_forever.c" >"$TMP/sub.json"
code=$(c -o "$TMP/subr.json" -w '%{http_code}' -X POST "$URL/api/submissions" \
    -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    --data-binary @"$TMP/sub.json")
[ "$code" = 202 ]
check "a submission is accepted for judging (HTTP $code)" $?
seen=""
for _ in $(seq 200); do
    for kid in $(ps -o pid= --ppid "$PID" 2>/dev/null); do
        u=$(awk '/^Uid:/ {print $2}' "/proc/$kid/status" 2>/dev/null)
        [ "$u" = 65534 ] && seen=$kid
    done
    [ -n "$seen" ] && break
    sleep 0.1
done
[ -n "$seen" ]
check "the sandbox's processes run as nobody on the host (pid ${seen:-none})" $?

# 6. the access log was made for attnjudge, and SIGTERM still stops the
# server (the sleeping judgement is re-queued: grace 0, so a sanitizer
# build may report the state it leaves to the exit, and the status is not
# checked here; tests/server/run.sh checks a clean stop)
[ "$(stat -c %U "$TMP/access.log")" = attnjudge ] && [ -s "$TMP/access.log" ]
check "the access log is attnjudge's and written" $?
kill -TERM "$PID"
for _ in $(seq 100); do
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
done
! kill -0 "$PID" 2>/dev/null && grep -q 'attnjudge: stopped' "$TMP/server.err"
check "SIGTERM stops the server" $?
wait "$PID" 2>/dev/null
PID=""

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
