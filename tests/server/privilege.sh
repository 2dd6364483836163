#!/usr/bin/env bash
# `attnjudge serve` started as root gives root up (issue 7, item 8):
# it binds its port (here one below 1024) and takes its data directory as
# root, then runs as run_as (attnjudge) — root only of a user namespace of
# its own that maps run_as and nobody, holding CAP_SETUID and CAP_SETGID
# there alone — while its sandboxes run as nobody, who can read neither
# the data directory nor the secret (docs/operations.md, "Privileges").
# `make run` works from a clone in a 0700 directory (root's home), and a
# data directory that cannot be used is refused in one line.
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
# waits up to TENTHS tenths of a second for "listening" in OUT while PID lives
wait_listening() { # OUT PID TENTHS
    for _ in $(seq "$3"); do
        grep -q listening "$1" 2>/dev/null && break
        kill -0 "$2" 2>/dev/null || break
        sleep 0.1
    done
}

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
LOW=$(/usr/bin/python3 - <<'EOF'
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
wait_listening "$TMP/out" "$PID" 150
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
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin).get("token",""))' 2>/dev/null)
/usr/bin/python3 -c 'import json,sys; print(json.dumps({"problem": sys.argv[1], "source": open(sys.argv[2]).read()}))' \
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

# 7. `make run` from a clone in a directory only root may enter (root's
# home is 0700): ./data, ./problems and ./web/dist are reached through the
# descriptors opened as root, the database included. The copy keeps the
# sources' times and make is given this build, so nothing is compiled.
CLONE_PARENT=$(mktemp -d /tmp/attnjudge-home.XXXXXX) # 0700, like /root
CLONE="$CLONE_PARENT/attnjudge"
MAKE_PID=""
stop_make_run() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -TERM "$PID"
        for _ in $(seq 100); do
            kill -0 "$PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$PID" 2>/dev/null && kill -KILL "$PID"
    fi
    if [ -n "$MAKE_PID" ]; then
        for _ in $(seq 50); do
            kill -0 "$MAKE_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$MAKE_PID" 2>/dev/null && kill -KILL "$MAKE_PID"
        wait "$MAKE_PID" 2>/dev/null
    fi
    PID=""
    MAKE_PID=""
}
cleanup_clone() {
    stop_make_run
    rm -rf "$CLONE_PARENT"
    cleanup
}
trap cleanup_clone EXIT
mkdir "$CLONE"
tar -C "$ROOT" --exclude=./.git --exclude='./build*' --exclude=./data \
    --exclude=./web/node_modules -cf - . | tar -C "$CLONE" -xf -
ln -s "$ROOT/web/node_modules" "$CLONE/web/node_modules" # no npm ci in the test
[ "$(stat -c %a "$CLONE_PARENT")" = 700 ] &&
    ! setpriv --reuid="$A_UID" --regid="$A_GID" --clear-groups ls "$CLONE" >/dev/null 2>&1
check "the clone's parent is 0700: run_as cannot reach ./data by name" $?
(cd "$CLONE" && exec env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u ATTNJUDGE_DEPS_DONE \
    make run BUILD="$BUILD" SERVE_FLAGS="--port 0 --workers 1 --set benchmark=false \
    --set shutdown_grace_s=0") >"$TMP/make.out" 2>"$TMP/make.err" &
MAKE_PID=$!
wait_listening "$TMP/make.out" "$MAKE_PID" 600
# the server: the process under make whose program is this build's attnjudge
for p in $(ps -e -o pid=); do
    [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$BIN" ] &&
        [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$CLONE" ] && PID=$p
done
MPORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$TMP/make.out")
if [ -n "$MPORT" ] && [ -n "$PID" ]; then
    ok "make run in a clone under a 0700 directory starts (port $MPORT, pid $PID)"
    code=$(c -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MPORT/healthz")
    [ "$code" = 200 ]
    check "/healthz answers 200 (HTTP $code)" $?
    code=$(c -o "$TMP/index.html" -w '%{http_code}' "http://127.0.0.1:$MPORT/")
    [ "$code" = 200 ] && grep -qi '<html' "$TMP/index.html"
    check "the clone's web/dist is served (HTTP $code)" $?
    code=$(c -o "$TMP/signup.json" -w '%{http_code}' -X POST "http://127.0.0.1:$MPORT/api/users" \
        -H 'Content-Type: application/json' \
        --data-binary '{"username":"clone-stu","password":"clone-password-1"}')
    [ "$code" = 201 ]
    check "a sign-up is written to ./data/attnjudge.db (HTTP $code)" $?
    [ "$(stat -c '%U %a' "$CLONE/data")" = "attnjudge 700" ] &&
        [ "$(stat -c %U "$CLONE/data/attnjudge.db")" = attnjudge ]
    check "./data and its database are attnjudge's" $?
    # a submission judged end to end: the problem's version files, the
    # compile caches and the secret under ./data, all through the descriptor
    CTOKEN=$(c -X POST "http://127.0.0.1:$MPORT/api/sessions" -H 'Content-Type: application/json' \
        --data-binary '{"username":"clone-stu","password":"clone-password-1"}' |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin).get("token",""))' 2>/dev/null)
    /usr/bin/python3 -c 'import json,sys; print(json.dumps({"problem": sys.argv[1], "source": open(sys.argv[2]).read()}))' \
        "$SLUG" "$ROOT/tests/submissions/$SLUG/accepted/plain_float.c" >"$TMP/csub.json"
    CID=$(c -X POST "http://127.0.0.1:$MPORT/api/submissions" -H "Authorization: Bearer $CTOKEN" \
        -H 'Content-Type: application/json' --data-binary @"$TMP/csub.json" |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin).get("id",""))' 2>/dev/null)
    verdict=""
    for _ in $(seq 600); do
        verdict=$(c "http://127.0.0.1:$MPORT/api/submissions/$CID" -H "Authorization: Bearer $CTOKEN" |
            /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("verdict") or "" if d.get("status")=="done" else "")' 2>/dev/null)
        [ -n "$verdict" ] && break
        sleep 0.2
    done
    [ "$verdict" = accepted ]
    check "a submission to $SLUG is judged accepted there (verdict ${verdict:-none})" $?
    grep -q "used through the descriptor opened as root" "$TMP/make.err"
    check "the server says how it reaches ./data: $(grep -o 'data directory.*' "$TMP/make.err" | head -1 | head -c 140)" $?
else
    bad "make run in a clone under a 0700 directory starts; its output:"
    tail -n 5 "$TMP/make.out" "$TMP/make.err"
fi
stop_make_run
grep -q 'attnjudge: stopped' "$TMP/make.err"
check "SIGTERM stops the server that make run started" $?

# 8. a data directory that truly cannot be used: one line saying why and
# what to do, status 1
one_line_refusal() { # NAME EXPECTED-TEXT COMMAND...
    local name=$1 want=$2
    shift 2
    "$@" >/dev/null 2>"$TMP/err"
    local status=$?
    if [ "$status" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "$want" "$TMP/err" &&
        grep -q 'name a writable directory' "$TMP/err"; then
        ok "$name: one line: $(cat "$TMP/err")"
    else
        bad "$name: one line with why and what to do (status $status: $(cat "$TMP/err"))"
    fi
}
: >"$TMP/a-file"
one_line_refusal "data names a file" "not a directory" \
    "$BIN" serve --port 0 --data "$TMP/a-file" --problems "$ROOT/problems"
mkdir "$TMP/ro"
one_line_refusal "data on a read-only file system" "Read-only file system" \
    unshare -m sh -c 'mount -t tmpfs -o ro,size=64k none "$1" && exec "$2" serve --port 0 \
        --data "$1/data" --problems "$3"' sh "$TMP/ro" "$BIN" "$ROOT/problems"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
