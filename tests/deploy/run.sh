#!/usr/bin/env bash
# The deployment files in deploy/, checked as far as this machine allows
# (docs/operations.md, "Deploying on one machine: what is verified"):
#
#   1. deploy/attnjudge.service: every directive explained, the options that
#      would break the sandbox absent, `systemd-analyze verify` silent;
#   2. as root: the server started from the unit's own ExecStart= under the
#      unit's restrictions, emulated without systemd (tests/deploy/unit-view.sh:
#      read-only system but the data directory, private /tmp, no /home,
#      no_new_privs, the capability bounding set, LimitNOFILE=): it judges an
#      accepted submission accepted and attacks as before;
#   3. deploy/nginx.conf, rendered with a throw-away certificate and free
#      loopback ports, in front of that server: nginx -t, TLS, HSTS, the body
#      limit, the forwarded client address, a forged X-Forwarded-For;
#   4. deploy/Dockerfile, statically (no docker daemon here): stages, COPY
#      sources, run-time packages against scripts/deps.sh, the config it makes;
#   5. deploy/compose.yaml, statically: PostgreSQL, a front end with workers 0,
#      two judge hosts, one database URL, the shared volume, no start deadlock;
#   6. deploy/prometheus/attnjudge-alerts.yml: promtool check rules, and
#      promtool test rules with tests/deploy/alerts_test.yml.
#
#   tests/deploy/run.sh [BUILD_DIR]
#
# Prints "ok ..." / "FAIL ..." and ends with "N passed, N failed". Loopback
# only, kernel-chosen or probed free ports; only the pids this script starts
# are signalled; every wait is bounded; the temporary directory is removed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
BIN="$BUILD/attnjudge"
UNIT="$ROOT/deploy/attnjudge.service"
NGINX_CONF="$ROOT/deploy/nginx.conf"
DOCKERFILE="$ROOT/deploy/Dockerfile"
SLUG=mha-fused-qkv
PASS=0
FAIL=0
SERVER_PID=""
NGINX_PID=""
TMP=$(mktemp -d /tmp/attnjudge-deploy.XXXXXX)
chmod 711 "$TMP" # run_as (attnjudge) and nginx's user must get through

ok() { echo "ok $*"; PASS=$((PASS + 1)); }
bad() { echo "FAIL $*"; FAIL=$((FAIL + 1)); }
check() { if [ "$2" -eq 0 ]; then ok "$1"; else bad "$1"; fi; }
c() { curl -q --noproxy '*' -s --max-time 30 "$@"; }

stop_pid() { # stop_pid PID SIGNAL: signal, wait at most 10 s, then SIGKILL
    local pid=$1
    [ -n "$pid" ] || return 0
    kill "-$2" "$pid" 2>/dev/null
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}
cleanup() {
    stop_pid "$NGINX_PID" QUIT
    stop_pid "$SERVER_PID" TERM
    rm -rf "$TMP"
}
trap cleanup EXIT

free_port() { # a free loopback TCP port (the kernel's choice)
    /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
jget() { # jget FILE PYTHON-EXPR-ON-d
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

if [ ! -x "$BIN" ]; then
    echo "FAIL $BIN is missing (run make)"
    echo "0 passed, 1 failed"
    exit 1
fi

# ---------------------------------------------------------------------------
# 1. the unit, statically

directives=$(sed -n 's/^\([A-Za-z]*\)=.*/\1/p' "$UNIT")
# each directive right below a comment of its own
uncommented=$(awk '
    /^[A-Za-z]+=/ { if (!ok) { key = $0; sub(/=.*/, "", key); printf " %s", key } }
    { ok = /^#/ }' "$UNIT")
[ -z "$uncommented" ]
check "every directive of the unit has a comment right above it${uncommented:+ (not:$uncommented)}" $?

for key in ExecStart NoNewPrivileges ProtectSystem ProtectHome PrivateTmp ReadWritePaths \
    LimitNOFILE Restart CapabilityBoundingSet KillMode; do
    echo "$directives" | grep -qx "$key" || missing="${missing:-} $key"
done
[ -z "${missing:-}" ]
check "the unit sets ExecStart=, NoNewPrivileges=, ProtectSystem=, ProtectHome=, PrivateTmp=, ReadWritePaths=, LimitNOFILE=, Restart=, CapabilityBoundingSet=, KillMode=${missing:+ (missing:$missing)}" $?
[ "$(sed -n 's/^ExecStart=//p' "$UNIT")" = "/usr/local/bin/attnjudge serve --config /etc/attnjudge.conf" ] &&
    [ "$(sed -n 's/^ProtectSystem=//p' "$UNIT")" = strict ] &&
    [ "$(sed -n 's/^ReadWritePaths=//p' "$UNIT")" = /var/lib/attnjudge ] &&
    [ "$(sed -n 's/^Restart=//p' "$UNIT")" = on-failure ] &&
    [ "$(sed -n 's/^KillMode=//p' "$UNIT")" = mixed ]
check "the unit: ExecStart serve --config /etc/attnjudge.conf, ProtectSystem=strict, ReadWritePaths=/var/lib/attnjudge only, Restart=on-failure, KillMode=mixed" $?
nofile=$(sed -n 's/^LimitNOFILE=//p' "$UNIT")
[ "${nofile##*:}" -ge 16384 ] 2>/dev/null
check "LimitNOFILE raised ($nofile)" $?

# These would break the sandbox or change its verdicts (the unit's closing
# comment says why for each); they may be named in comments only.
present=""
for key in User DynamicUser PrivateUsers RestrictNamespaces SystemCallFilter \
    SystemCallArchitectures RestrictAddressFamilies RestrictRealtime RestrictSUIDSGID \
    LockPersonality MemoryDenyWriteExecute ProtectKernelModules ProtectKernelLogs ProtectClock \
    ProtectHostname PrivateDevices PrivateNetwork ProtectProc ProcSubset; do
    echo "$directives" | grep -qx "$key" && present="$present $key"
done
[ -z "$present" ]
check "no User=, PrivateUsers=, RestrictNamespaces= or seccomp-based option in the unit${present:+ (found:$present)}" $?

# the judge hosts' template unit: the same rules, its own command
WUNIT="$ROOT/deploy/attnjudge-worker@.service"
uncommented=$(awk '
    /^[A-Za-z]+=/ { if (!ok) { key = $0; sub(/=.*/, "", key); printf " %s", key } }
    { ok = /^#/ }' "$WUNIT")
[ -z "$uncommented" ]
check "every directive of the worker unit has a comment right above it${uncommented:+ (not:$uncommented)}" $?
wdirectives=$(sed -n 's/^\([A-Za-z]*\)=.*/\1/p' "$WUNIT")
present=""
for key in $(echo "$directives" | sort -u); do
    case $key in Description | After | ExecStart | IPAddressAllow | WantedBy) continue ;; esac
    [ "$(sed -n "s/^$key=//p" "$UNIT")" = "$(sed -n "s/^$key=//p" "$WUNIT")" ] ||
        present="$present $key"
done
[ -z "$present" ] &&
    [ "$(sed -n 's/^ExecStart=//p' "$WUNIT")" = "/usr/local/bin/attnjudge worker --config /etc/attnjudge.conf" ]
check "the worker unit: attnjudge worker --config /etc/attnjudge.conf, every other setting the server unit's${present:+ (differs:$present)}" $?
present=""
for key in User DynamicUser PrivateUsers RestrictNamespaces SystemCallFilter PrivateDevices \
    MemoryDenyWriteExecute IPAddressAllow; do
    echo "$wdirectives" | grep -qx "$key" && present="$present $key"
done
[ -z "$present" ]
check "the worker unit: no option that breaks the sandbox, and no network${present:+ (found:$present)}" $?

if command -v systemd-analyze >/dev/null 2>&1; then
    # verify checks that ExecStart's binary exists: a copy names the build's
    mkdir -p "$TMP/unit"
    for u in "$UNIT" "$WUNIT"; do
        name=$(basename "$u")
        sed "s|^ExecStart=/usr/local/bin/attnjudge |ExecStart=$BIN |" "$u" >"$TMP/unit/$name"
        # a template is verified as one of its instances
        [ "$name" = "attnjudge-worker@.service" ] && name=attnjudge-worker@1.service &&
            cp "$TMP/unit/attnjudge-worker@.service" "$TMP/unit/$name"
        (cd "$TMP/unit" && systemd-analyze verify "$TMP/unit/$name") >"$TMP/unit/verify.out" 2>&1
        status=$?
        # it exits 0 on unknown keys and unparsable values: silence is the test
        said=$(head -c 300 "$TMP/unit/verify.out")
        [ "$status" -eq 0 ] && [ -z "$said" ]
        check "systemd-analyze verify deploy/$(basename "$u"): no complaint${said:+ ($said)}" $?
    done
else
    bad "systemd-analyze is missing (Debian package systemd)"
fi

# ---------------------------------------------------------------------------
# 2. the server under the unit's restrictions (root), or a plain server

# the config: deploy/attnjudge.conf with the lines docs/operations.md
# ("Deploying on one machine") tells the operator to change, plus test ones.
# shutdown_grace_s is 20, not the default 30, but far above the 3 s the
# stop check's sleeping judgement needs when idle: a fresh-machine run with
# 5 s, the whole suite side by side, once saw it re-queued instead.
render_conf() { # render_conf OUT DATA SHARE
    local out=$1 data=$2 share=$3
    sed -e "s|^data = .*|data = $data|" \
        -e "s|^problems = .*|problems = $share/problems|" \
        -e "s|^reference = .*|reference = $share/reference|" \
        -e "s|^web = .*|web = $share/web|" \
        -e 's|^trusted_proxy =.*|trusted_proxy = 127.0.0.1|' \
        -e "s|^public_url =.*|public_url = https://localhost:$HTTPS_PORT/|" \
        -e 's|^max_connections_per_ip = .*|max_connections_per_ip = 0|' \
        -e 's|^port = .*|port = 0|' \
        -e 's|^workers = .*|workers = 1|' \
        -e 's|^benchmark = .*|benchmark = off|' \
        -e 's|^auth_burst = .*|auth_burst = 3|' \
        -e 's|^auth_rate_per_min = .*|auth_rate_per_min = 0.001|' \
        -e 's|^shutdown_grace_s = .*|shutdown_grace_s = 20|' \
        "$ROOT/deploy/attnjudge.conf" >"$out"
    local n
    n=$(diff "$ROOT/deploy/attnjudge.conf" "$out" | grep -c '^>')
    if [ "$n" -ne 13 ]; then
        bad "the config's thirteen lines were rewritten (only $n: deploy/attnjudge.conf changed?)"
        return 1
    fi
}

# nginx's ports, known to the server's config (public_url)
HTTPS_PORT=$(free_port)
HTTP_PORT=$(free_port)
UNIT_MODE=0
[ "$(id -u)" -eq 0 ] && UNIT_MODE=1
STAGE="$TMP/stage"
if [ "$UNIT_MODE" -eq 1 ]; then
    # what `make install` and the docs' steps put on the machine
    SHARE=/usr/local/share/attnjudge
    DATA=/var/lib/attnjudge
    mkdir -p "$STAGE/root/etc" "$STAGE/root/usr/local/bin" "$STAGE/root$SHARE/web" \
        "$STAGE/root/var/lib"
    cp "$BIN" "$STAGE/root/usr/local/bin/attnjudge"
    cp -R "$ROOT/problems" "$ROOT/reference" "$STAGE/root$SHARE/"
    if [ -d "$ROOT/web/dist" ]; then cp -R "$ROOT/web/dist/." "$STAGE/root$SHARE/web/"; fi
    chmod -R a+rX "$STAGE/root/usr"
    install -d -m 0700 "$STAGE/root$DATA"
    render_conf "$STAGE/root/etc/attnjudge.conf" "$DATA" "$SHARE"
    DATA_HOST="$STAGE/root$DATA"
else
    echo "(not root: the unit's restrictions are not emulated; a plain server instead)"
    SHARE="$TMP/share"
    mkdir -p "$SHARE"
    ln -s "$ROOT/problems" "$SHARE/problems"
    ln -s "$ROOT/reference" "$SHARE/reference"
    ln -s "$ROOT/web/dist" "$SHARE/web"
    DATA_HOST="$TMP/data"
    DATA="$DATA_HOST"
    render_conf "$TMP/attnjudge.conf" "$DATA_HOST" "$SHARE"
fi

# accounts, made before the start (as root, the database is handed to
# run_as at the start)
echo 'stu-password-1' | "$BIN" user add stu --role student --data "$DATA_HOST" \
    --password-stdin >/dev/null &&
    echo 'prof-password-1' | "$BIN" user add prof --role instructor --data "$DATA_HOST" \
        --password-stdin >/dev/null
check "accounts created in the data directory before the start" $?

start_server() { # sets SERVER_PID, PORT, URL; the server's stderr is appended to serve.err
    if [ "$UNIT_MODE" -eq 1 ]; then
        unshare --mount --propagation private \
            bash "$ROOT/tests/deploy/unit-view.sh" "$UNIT" "$STAGE" \
            </dev/null >"$TMP/serve.out" 2>>"$TMP/serve.err" &
    else
        "$BIN" serve --config "$TMP/attnjudge.conf" </dev/null >"$TMP/serve.out" \
            2>>"$TMP/serve.err" &
    fi
    SERVER_PID=$!
    PORT=""
    for _ in $(seq 300); do
        PORT=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' \
            "$TMP/serve.out" 2>/dev/null | head -1)
        [ -n "$PORT" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    URL="http://127.0.0.1:$PORT"
    [ -n "$PORT" ]
}
if ! start_server; then
    bad "the server starts (its log follows)"
    tail -20 "$TMP/serve.err"
    echo "$PASS passed, $FAIL failed"
    exit 1
fi
if [ "$UNIT_MODE" -eq 1 ]; then
    ok "the server starts from the unit's ExecStart under its restrictions (port $PORT)"
else
    ok "the server starts (port $PORT)"
fi

if [ "$UNIT_MODE" -eq 1 ]; then
    st=/proc/$SERVER_PID/status
    [ "$(awk '/^NoNewPrivs:/ {print $2}' "$st")" = 1 ]
    check "the server runs with no_new_privs (NoNewPrivileges=yes)" $?
    [ "$(awk '/^Uid:/ {print $3}' "$st")" = "$(id -u attnjudge)" ] &&
        [ "$(awk '/^CapBnd:/ {print $2}' "$st")" = 00000000000000c0 ]
    check "...as attnjudge, with CAP_SETUID and CAP_SETGID of its own namespace only (it dropped root)" $?
    got=$(awk '/^Max open files/ {print $4, $5}' "/proc/$SERVER_PID/limits")
    if grep -q 'LimitNOFILE=.* cannot be set here' "$TMP/serve.err"; then
        hard=$(ulimit -Hn)
        [ "$got" = "$hard $hard" ]
        check "its descriptor limit is this machine's hard limit, $hard (LimitNOFILE=$nofile needs CAP_SYS_RESOURCE, which this test lacks)" $?
    else
        [ "$got" = "$nofile $nofile" ]
        check "its descriptor limit is LimitNOFILE ($got)" $?
    fi
    # the server's own view of the file system, entered from outside
    in_view() { nsenter --mount="/proc/$SERVER_PID/ns/mnt" -- "$@"; }
    in_view sh -c ': >/usr/local/bin/x' 2>/dev/null
    s1=$?
    in_view sh -c ': >/etc/x' 2>/dev/null
    s2=$?
    in_view sh -c ': >/var/lib/x' 2>/dev/null
    s3=$?
    [ $s1 -ne 0 ] && [ $s2 -ne 0 ] && [ $s3 -ne 0 ]
    check "in the server's view /usr, /etc and /var/lib are read-only (ProtectSystem=strict)" $?
    in_view sh -c ": >$DATA/.rw-probe && rm $DATA/.rw-probe"
    check "...and $DATA is writable (ReadWritePaths=)" $?
    [ "$(in_view stat -c %a /home)" = 0 ] && [ "$(in_view stat -c %a /root)" = 0 ] &&
        [ -z "$(in_view ls -A /home)" ] && [ -z "$(in_view ls -A /root)" ]
    check "/home and /root are empty and closed (ProtectHome=yes)" $?
    [ "$(in_view findmnt -n -o FSTYPE /tmp)" = tmpfs ] && [ -z "$(in_view ls -A /tmp)" ]
    check "/tmp is a private, empty tmpfs (PrivateTmp=yes)" $?
fi

code=$(c -o "$TMP/health.json" -w '%{http_code}' "$URL/healthz")
[ "$code" = 200 ] && [ "$(jget "$TMP/health.json" 'd["sandbox"]')" = ok ]
check "/healthz: 200, sandbox ok (HTTP $code)" $?

signin() { # signin USER PASSWORD [curl args] -> token
    local u=$1 p=$2
    shift 2
    c "$@" -X POST "$URL/api/sessions" -H 'Content-Type: application/json' \
        --data-binary "{\"username\":\"$u\",\"password\":\"$p\"}" -o "$TMP/signin.json"
    jget "$TMP/signin.json" 'd["token"]'
}
TOKEN=$(signin stu stu-password-1)
PROF=$(signin prof prof-password-1)
[ -n "$TOKEN" ] && [ -n "$PROF" ]
check "the student and the instructor sign in" $?

judge() { # judge FILE -> verdict (or "timeout" / "")
    /usr/bin/python3 -c 'import json,sys; print(json.dumps({"problem": sys.argv[1], "source": open(sys.argv[2]).read().replace("@ATTNJUDGE_DATA@", sys.argv[3])}))' \
        "$SLUG" "$1" "$DATA" >"$TMP/sub.json"
    c -X POST "$URL/api/submissions" -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/json' --data-binary @"$TMP/sub.json" -o "$TMP/subr.json"
    local id
    id=$(jget "$TMP/subr.json" 'd["id"]')
    [ -n "$id" ] || return 0
    for _ in $(seq 600); do
        c "$URL/api/submissions/$id" -H "Authorization: Bearer $TOKEN" -o "$TMP/poll.json"
        if [ "$(jget "$TMP/poll.json" 'd["status"]')" = done ]; then
            jget "$TMP/poll.json" 'd["verdict"]'
            return 0
        fi
        sleep 0.2
    done
    echo timeout
}
good=$(ls "$ROOT/tests/submissions/$SLUG/accepted/"*.c | head -1)
v=$(judge "$good")
name=$(basename "$good")
[ "$v" = accepted ]
check "a correct submission is judged accepted ($name: $v)" $?
# attacks at run time and at compile time, with the verdict their header expects
for attack in execve_sh clone3_raw ctor_open_passwd include_secret_datadir incbin_etc_shadow; do
    f="$ROOT/tests/attacks/$attack.c"
    want=$(sed -n 's/^ \* expect: //p' "$f" | head -1)
    v=$(judge "$f")
    [ -n "$want" ] && [ "$v" = "$want" ]
    check "attack $attack is still $want ($v)" $?
done

# ---------------------------------------------------------------------------
# 3. nginx in front

NG="$TMP/nginx"
mkdir -p "$NG/tmp"
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -x "$NGINX" ] || ! command -v openssl >/dev/null; then
    bad "nginx and openssl are installed (scripts/deps.sh test)"
else
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
        -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
        -keyout "$NG/key.pem" -out "$NG/cert.pem" >/dev/null 2>&1
    check "a throw-away certificate for localhost" $?
    # the site file with this test's ports and paths; every rewrite must hit
    sed -e "s|^\( *\)listen 443 ssl http2;|\1listen 127.0.0.1:$HTTPS_PORT ssl http2;|" \
        -e "s|^\( *\)listen 80;|\1listen 127.0.0.1:$HTTP_PORT;|" \
        -e '/^ *listen \[::\]:/d' \
        -e "s|^\( *\)server 127.0.0.1:8080;|\1server 127.0.0.1:$PORT;|" \
        -e "s|^\( *\)ssl_certificate /etc/ssl/attnjudge/fullchain.pem;|\1ssl_certificate $NG/cert.pem;|" \
        -e "s|^\( *\)ssl_certificate_key /etc/ssl/attnjudge/privkey.pem;|\1ssl_certificate_key $NG/key.pem;|" \
        -e 's|^\( *\)server_name judge.example.edu;|\1server_name localhost;|' \
        "$NGINX_CONF" >"$NG/attnjudge.conf"
    n=$(diff "$NGINX_CONF" "$NG/attnjudge.conf" | grep -c '^<')
    [ "$n" -eq 9 ]
    check "deploy/nginx.conf rendered with temporary ports and certificate (9 lines changed: $n)" $?
    cat >"$NG/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes 1;
pid $NG/nginx.pid;
error_log $NG/error.log notice;
events { worker_connections 256; }
http {
    access_log $NG/access.log;
    client_body_temp_path $NG/tmp/body;
    proxy_temp_path $NG/tmp/proxy;
    fastcgi_temp_path $NG/tmp/fastcgi;
    uwsgi_temp_path $NG/tmp/uwsgi;
    scgi_temp_path $NG/tmp/scgi;
    include $NG/attnjudge.conf;
}
EOF
    # nginx runs unprivileged: as nobody when this script is root
    RUN_NGINX=()
    if [ "$(id -u)" -eq 0 ]; then
        chown -R 65534:65534 "$NG"
        RUN_NGINX=(setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs --)
    fi
    "${RUN_NGINX[@]}" "$NGINX" -t -p "$NG" -c "$NG/nginx.conf" -e "$NG/error.log" \
        >"$TMP/nginx-t.out" 2>&1
    status=$?
    said=$(grep -v 'syntax is ok\|test is successful' "$TMP/nginx-t.out" | head -c 300)
    [ "$status" -eq 0 ] && grep -q 'test is successful' "$TMP/nginx-t.out"
    check "nginx -t accepts the rendered deploy/nginx.conf${said:+ ($said)}" $?
    "${RUN_NGINX[@]}" "$NGINX" -p "$NG" -c "$NG/nginx.conf" -e "$NG/error.log" \
        </dev/null >"$TMP/nginx.out" 2>&1 &
    NGINX_PID=$!
    HTTPS="https://localhost:$HTTPS_PORT"
    n() { c --cacert "$NG/cert.pem" --resolve "localhost:$HTTPS_PORT:127.0.0.1" "$@"; }
    up=1
    for _ in $(seq 100); do
        n -o /dev/null "$HTTPS/healthz" && { up=0; break; }
        kill -0 "$NGINX_PID" 2>/dev/null || break
        sleep 0.1
    done
    said=$(grep -i emerg "$NG/error.log" 2>/dev/null | tail -1)
    check "nginx starts (unprivileged, pid $NGINX_PID)${said:+ ($said)}" $up

    code=$(n -D "$TMP/h.txt" -o "$TMP/health2.json" -w '%{http_code}' "$HTTPS/healthz")
    [ "$code" = 200 ] && [ "$(jget "$TMP/health2.json" 'd["status"]')" = ok ]
    check "GET /healthz over https, through nginx: 200 ok" $?
    grep -qi '^Strict-Transport-Security: max-age=63072000' "$TMP/h.txt"
    check "HSTS on the proxied answer" $?
    dup=""
    for h in Content-Security-Policy X-Content-Type-Options X-Frame-Options Referrer-Policy \
        Cache-Control Strict-Transport-Security; do
        [ "$(grep -ci "^$h:" "$TMP/h.txt")" = 1 ] || dup="$dup $h"
    done
    [ -z "$dup" ]
    check "each security header exactly once (the server's and nginx's do not overlap)${dup:+ (not:$dup)}" $?
    ! grep -qi '^Server: nginx/' "$TMP/h.txt"
    check "no nginx version in the Server header" $?

    n --tlsv1.3 -o /dev/null "$HTTPS/healthz" && n --tlsv1.2 --tls-max 1.2 -o /dev/null "$HTTPS/healthz"
    check "TLS 1.3 and TLS 1.2 are served" $?
    v=$(n --http2 -o /dev/null -w '%{http_version}' "$HTTPS/healthz")
    [ "$v" = 2 ]
    check "HTTP/2 is served (HTTP/$v)" $?
    n --tlsv1.1 --tls-max 1.1 --ciphers 'DEFAULT@SECLEVEL=0' -o /dev/null "$HTTPS/healthz" 2>/dev/null
    [ $? -ne 0 ]
    check "TLS 1.1 is refused" $?
    code=$(c -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$HTTP_PORT/x?y=1")
    [ "$code" = "301 https://127.0.0.1/x?y=1" ]
    check "plain HTTP redirects to https ($code)" $?

    # the body limit: exactly max_package_kib passes to the server (which
    # reads all of it and finds it is not JSON), one byte more is nginx's 413
    limit=$(($(sed -n 's/^max_package_kib = //p' "$ROOT/deploy/attnjudge.conf") * 1024))
    head -c "$limit" /dev/zero | tr '\0' 'a' >"$TMP/body-at"
    head -c $((limit + 1)) /dev/zero | tr '\0' 'a' >"$TMP/body-over"
    code=$(n -o "$TMP/at.out" -w '%{http_code}' -X POST "$HTTPS/api/problems" \
        -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' \
        --data-binary @"$TMP/body-at")
    ecode=$(jget "$TMP/at.out" 'd["error"]["code"]')
    [ "$code" = 400 ] && [ "$ecode" = bad_json ]
    check "a body of max_package_kib ($limit bytes) reaches the server (HTTP $code, $ecode)" $?
    code=$(n -D "$TMP/h413.txt" -o "$TMP/over.out" -w '%{http_code}' -X POST "$HTTPS/api/problems" \
        -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' \
        --data-binary @"$TMP/body-over")
    [ "$code" = 413 ] && grep -q '<center>nginx</center>' "$TMP/over.out" &&
        grep -qi '^Strict-Transport-Security' "$TMP/h413.txt"
    check "one byte more is refused by nginx itself: 413, with HSTS (HTTP $code)" $?

    # the client address the server sees: nginx connects to the server
    # from 127.0.0.1 (trusted_proxy); a client at 127.0.0.3 must be logged
    # as 127.0.0.3
    logged() { # logged TAG -> the address of the access-log line of /api/nope-TAG
        local line=""
        for _ in $(seq 50); do
            line=$(grep -F "\"GET /api/nope-$1\"" "$TMP/serve.err" | tail -1)
            [ -n "$line" ] && break
            sleep 0.1
        done
        echo "$line" | awk '{print $2}'
    }
    n --interface 127.0.0.3 -o /dev/null "$HTTPS/api/nope-fwd"
    a=$(logged fwd)
    [ "$a" = 127.0.0.3 ]
    check "the server logs the client's address (127.0.0.3), not the proxy's: $a" $?
    n --interface 127.0.0.3 -H 'X-Forwarded-For: 203.0.113.9' -o /dev/null "$HTTPS/api/nope-spoof3"
    a=$(logged spoof3)
    [ "$a" = 127.0.0.3 ]
    check "a client's forged X-Forwarded-For is not believed: $a" $?
    # a client whose own address is a trusted proxy (here any local user):
    # with an appended header the server would skip it and take the forgery
    n --interface 127.0.0.1 -H 'X-Forwarded-For: 203.0.113.9' -o /dev/null "$HTTPS/api/nope-spoof1"
    a=$(logged spoof1)
    [ "$a" = 127.0.0.1 ]
    check "...not even from an address in trusted_proxy: nginx replaces the header ($a)" $?
    code=$(n -o /dev/null -w '%{http_code}' "$HTTPS/metrics")
    code2=$(c -o /dev/null -w '%{http_code}' "$URL/metrics")
    [ "$code" = 403 ] && [ "$code2" = 200 ]
    check "/metrics: 403 through the proxy, 200 to this host's scraper on the port ($code, $code2)" $?
    # per-address sign-in limit through the proxy (auth_burst = 3)
    codes=""
    for i in 1 2 3 4; do
        codes="$codes $(n --interface 127.0.0.3 -o /dev/null -w '%{http_code}' -X POST \
            "$HTTPS/api/sessions" -H 'Content-Type: application/json' \
            -H "X-Forwarded-For: 198.51.100.$i" \
            --data-binary "{\"username\":\"nobody$i\",\"password\":\"wrong-password\"}")"
    done
    other=$(n --interface 127.0.0.4 -o /dev/null -w '%{http_code}' -X POST "$HTTPS/api/sessions" \
        -H 'Content-Type: application/json' \
        --data-binary '{"username":"nobody9","password":"wrong-password"}')
    [ "$codes" = " 401 401 401 429" ] && [ "$other" = 401 ]
    check "sign-in limits per client behind the proxy: 127.0.0.3 limited after 3 failures whatever X-Forwarded-For it sends ($codes), 127.0.0.4 not ($other)" $?
    code=$(n -o "$TMP/me.json" -w '%{http_code}' "$HTTPS/api/me" -H "Authorization: Bearer $TOKEN")
    [ "$code" = 200 ] && grep -q '"stu"' "$TMP/me.json"
    check "an authenticated API call through the proxy (HTTP $code)" $?
fi

# Stopping. systemd's default (KillMode=control-group) sends SIGTERM to
# every process of the service, sandboxes included; the unit says
# KillMode=mixed: SIGTERM to the server alone, which lets running
# judgements finish within shutdown_grace_s. Both, with a judgement running
# (sleep_forever: time_limit after its 3 s wall clock).
descendants() { # every process below pid $1
    local kid
    for kid in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        echo "$kid"
        descendants "$kid"
    done
}
stop_while_judging() { # stop_while_judging main|all; sets status (exit status), verdict (STATUS/VERDICT) and seen (the stage at the TERM, and when)
    local id stage="" began=$SECONDS
    /usr/bin/python3 -c 'import json,sys; print(json.dumps({"problem": sys.argv[1], "source": open(sys.argv[2]).read()}))' \
        "$SLUG" "$ROOT/tests/attacks/sleep_forever.c" >"$TMP/sub.json"
    c -X POST "$URL/api/submissions" -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/json' --data-binary @"$TMP/sub.json" -o "$TMP/subr.json"
    id=$(jget "$TMP/subr.json" 'd["id"]')
    for _ in $(seq 300); do
        c "$URL/api/submissions/$id" -H "Authorization: Bearer $TOKEN" -o "$TMP/poll.json"
        stage=$(jget "$TMP/poll.json" '(d.get("progress") or {}).get("stage")')
        [ "$stage" = running ] && break
        sleep 0.1
    done
    # ...and until every sandbox started has its program running: a process
    # in the sandbox's PID namespace that is not the namespace's init (the
    # last NSpid field 2 or more). Under load, a sandbox can still be
    # setting up when the stage already says running, and a TERM from
    # outside reaches only its init, which a namespace's init does not take.
    local programs=0 inits=0 p inner
    for _ in $(seq 100); do
        programs=0
        inits=0
        for p in $(descendants "$SERVER_PID"); do
            inner=$(awk '/^NSpid:/ { print (NF >= 3 ? $NF : 0) }' /proc/"$p"/status 2>/dev/null)
            case "$inner" in
            '' | 0) ;;
            1) inits=$((inits + 1)) ;;
            *) programs=$((programs + 1)) ;;
            esac
        done
        [ "$programs" -ge 1 ] && [ "$programs" -eq "$inits" ] && break
        sleep 0.1
    done
    sleep 0.2 # the programs are asleep in their sandboxes
    # (in the message: a failure says whether the judgement was running)
    seen="stage ${stage:-none} after $((SECONDS - began)) s, $programs of $inits sandboxes' programs running"
    if [ "$1" = main ]; then
        kill -TERM "$SERVER_PID"
    else
        # shellcheck disable=SC2046
        kill -TERM $(descendants "$SERVER_PID") "$SERVER_PID"
    fi
    for _ in $(seq 300); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    status=$?
    SERVER_PID=""
    verdict=$(/usr/bin/python3 -c '
import sqlite3, sys
row = sqlite3.connect(sys.argv[1], timeout=10).execute(
    "SELECT status, verdict FROM submissions WHERE id = ?", (int(sys.argv[2]),)).fetchone()
print(f"{row[0]}/{row[1]}" if row else "none")' "$DATA_HOST/attnjudge.db" "$id")
}
stop_while_judging main
[ "$status" -eq 0 ] && grep -q 'attnjudge: stopped' "$TMP/serve.err" && [ "$verdict" = done/time_limit ]
check "SIGTERM to the server alone (KillMode=mixed) while a sleeping submission runs: exit status $status, the judgement finishes as $verdict ($seen)" $?
if start_server; then
    stop_while_judging all
    [ "$verdict" != done/time_limit ] && [ "$verdict" != none ]
    check "SIGTERM to every process (systemd's default, KillMode=control-group) records it as $verdict instead: why the unit says KillMode=mixed ($seen)" $?
else
    bad "the server starts again on the same data directory"
fi

# ---------------------------------------------------------------------------
# 4. the Dockerfile, statically (tests/deploy/dockerfile_check.py says what)

/usr/bin/python3 "$ROOT/tests/deploy/dockerfile_check.py" "$ROOT" "$BIN" >"$TMP/docker.out" 2>&1
status=$?
cat "$TMP/docker.out"
PASS=$((PASS + $(grep -c '^ok ' "$TMP/docker.out")))
FAIL=$((FAIL + $(grep -c '^FAIL ' "$TMP/docker.out")))
[ "$status" -eq 0 ] && grep -q '^ok ' "$TMP/docker.out"
check "the Dockerfile checks ran to the end" $?

# 5. the compose file, statically (tests/deploy/compose_check.py says what)
/usr/bin/python3 "$ROOT/tests/deploy/compose_check.py" "$ROOT" >"$TMP/compose.out" 2>&1
status=$?
cat "$TMP/compose.out"
PASS=$((PASS + $(grep -c '^ok ' "$TMP/compose.out")))
FAIL=$((FAIL + $(grep -c '^FAIL ' "$TMP/compose.out")))
[ "$status" -eq 0 ] && grep -q '^ok ' "$TMP/compose.out"
check "the compose checks ran to the end" $?

# 6. the sample alert rules: valid, and firing when they should and only
# then, with every host's series seen through two front ends
# (tests/deploy/alerts_test.yml)
promtool check rules "$ROOT/deploy/prometheus/attnjudge-alerts.yml" >"$TMP/rules.out" 2>&1
check "promtool check rules: the sample alert rules are valid" $?
(cd "$ROOT/tests/deploy" && promtool test rules alerts_test.yml) >>"$TMP/rules.out" 2>&1
check "promtool test rules: each alert fires when it should, counting a host once" $?
cat "$TMP/rules.out"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
