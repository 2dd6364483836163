#!/usr/bin/env bash
# deploy/Dockerfile built and run for real, with Debian's podman (no docker
# daemon is needed), end to end (docs/operations.md, "In a container"):
#
#   1. a Debian bookworm base image made here with debootstrap from
#      deb.debian.org (no registry of images is needed) and tagged
#      debian:bookworm and debian:bookworm-slim, so the FROM lines resolve
#      without pulling;
#   2. podman build -f deploy/Dockerfile (--network=host: the build stage
#      fetches Debian packages and the web UI's npm packages);
#   3. the image run as the Dockerfile's header says (seccomp and AppArmor
#      unconfined, --cap-drop ALL plus the five capabilities, no new
#      privileges, read-only root with a tmpfs /tmp, a data volume), its
#      port published on 127.0.0.1 only, on a free port;
#   4. through the HTTP API (tests/deploy/container_api.py): /healthz 200
#      with the sandbox self-test ok, a student signs up, an accepted and a
#      wrong submission get accepted and wrong_answer, ten attacks of
#      tests/attacks/ get the verdicts their headers expect;
#   5. the image's HEALTHCHECK, the server's privilege drop, and a clean
#      stop on SIGTERM;
#   6. with podman-compose: deploy/compose.yaml (PostgreSQL, a front end
#      with workers = 0, two judge hosts), its database image a stand-in
#      built here (tests/deploy/postgres.Dockerfile, Debian's
#      postgresql-15), its port moved to a free one on 127.0.0.1: the same
#      API checks, judged by the judge hosts, then `podman-compose down -v`.
#
#   tests/deploy/container.sh        (make container-check; as root)
#
# Not part of `make test`: it downloads some hundreds of MB (a Debian base,
# the build packages, npm packages) and takes minutes. As root it installs
# podman and friends with apt-get if they are missing; when podman cannot be
# installed or cannot run a container it prints "skipped: <why>" and exits 0.
#
# Everything podman keeps goes to a private store under one temporary
# directory (CONTAINERS_STORAGE_CONF and CONTAINERS_CONF name it, for podman
# and podman-compose alike: images, containers, volumes and network
# definitions): the machine's own are neither used nor touched, and the
# directory is removed at exit. Only the containers this script starts are
# stopped, by their names.
# Prints "PASS ..." / "FAIL ..." lines and "N passed, N failed"; exits 1 if
# anything failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PASS=0
FAIL=0
NAME=attnjudge-check-$$
PROJECT=attnjudgecheck$$
# the name deploy/compose.yaml gives the image (image: attnjudge:latest)
IMAGE=localhost/attnjudge:latest
WORK=""
HAVE_STORE=0
RUNTIME=()
STARTED=0
COMPOSE_UP=0

ok() { echo "PASS $*"; PASS=$((PASS + 1)); }
bad() { echo "FAIL $*"; FAIL=$((FAIL + 1)); }
note() { echo "note: $*"; }
skip() { echo "skipped: $*"; exit 0; }
finish() {
    echo "$PASS passed, $FAIL failed"
    [ "$FAIL" -eq 0 ]
    exit $?
}
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
api_checks() { # api_checks PORT [JUDGE_HOSTS]: container_api.py's lines, counted
    python3 "$ROOT/tests/deploy/container_api.py" "$1" "$ROOT" ${2:+"$2"} >"$WORK/api.out" 2>&1
    cat "$WORK/api.out"
    PASS=$((PASS + $(grep -c '^PASS ' "$WORK/api.out")))
    FAIL=$((FAIL + $(grep -c '^FAIL ' "$WORK/api.out")))
    grep -qE '^(PASS|FAIL) ' "$WORK/api.out" || bad "container_api.py printed no result"
}

cleanup() {
    [ -n "$WORK" ] || return 0
    if [ "$HAVE_STORE" = 1 ]; then
        if [ "$STARTED" = 1 ]; then
            podman stop -t 60 "$NAME" >/dev/null 2>&1
        fi
        if [ "$COMPOSE_UP" = 1 ]; then
            (cd "$WORK/compose/deploy" && ATTNJUDGE_DB_PASSWORD=x \
                podman-compose -p "$PROJECT" down -v -t 60) >/dev/null 2>&1
        fi
        # the private store holds only what this script made
        podman rm -af >/dev/null 2>&1
        podman volume rm -af >/dev/null 2>&1
        podman rmi -af >/dev/null 2>&1
        podman network rm -f "${PROJECT}_default" >/dev/null 2>&1
    fi
    # the store's own mounts (overlay keeps its directory bound on itself)
    grep -o " ${WORK}[^ ]*" /proc/mounts 2>/dev/null | sort -r | while read -r m; do
        umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- podman, or why not ---------------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "needs root (rootful podman, as the Dockerfile's server starts as the container's root; debootstrap)"
PKGS="podman buildah crun runc fuse-overlayfs slirp4netns uidmap debootstrap podman-compose"
missing=""
for p in $PKGS; do
    case "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" in
        *" installed") ;;
        *) missing="$missing $p" ;;
    esac
done
if [ -n "$missing" ]; then
    command -v apt-get >/dev/null 2>&1 || skip "podman is not installed and there is no apt-get"
    echo "installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    if ! { apt-get update -qq && apt-get install -y -qq $missing; } >/dev/null 2>&1; then
        skip "apt-get install$missing failed (no Debian mirror reachable?)"
    fi
fi
command -v podman >/dev/null 2>&1 || skip "no podman command after installing it"

WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/attnjudge-container.XXXXXX")

# Limits: podman's rootful defaults (nofile 1048576, nproc 4194304) and the
# Dockerfile's nofile=65536 need CAP_SYS_RESOURCE to go over the hard limits
# podman itself runs with; a machine without it (a VM whose bounding set
# lacks it) gets its own hard limits. podman 4.3 sets its own RLIMIT_NPROC
# to 32768 (seen with strace), so no container can have more.
hard_n=$(ulimit -Hn)
hard_u=$(ulimit -Hu)
nofile=65536
[ "$hard_n" != unlimited ] && [ "$hard_n" -lt "$nofile" ] && nofile=$hard_n
nproc=32768
[ "$hard_u" != unlimited ] && [ "$hard_u" -lt "$nproc" ] && nproc=$hard_u
ULIMITS=(--ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc")
[ "$nofile" = 65536 ] || note "nofile=$nofile: the hard limit here (the Dockerfile says 65536)"

# The private store, and the defaults of containers podman-compose starts
# (it passes no --ulimit).
write_conf() { # write_conf [RUNTIME]
    {
        echo "[containers]"
        echo "default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]"
        echo "[network]"
        echo "network_config_dir = \"$WORK/networks\""
        if [ -n "${1:-}" ]; then
            echo "[engine]"
            echo "runtime = \"$1\""
        fi
    } >"$WORK/containers.conf"
}
mkdir -p "$WORK/networks"
printf '[storage]\ndriver = "overlay"\ngraphroot = "%s"\nrunroot = "%s"\n' \
    "$WORK/storage" "$WORK/run" >"$WORK/storage.conf"
write_conf
export CONTAINERS_STORAGE_CONF="$WORK/storage.conf" CONTAINERS_CONF="$WORK/containers.conf"
HAVE_STORE=1
podman info >/dev/null 2>"$WORK/info.err" \
    || skip "podman info fails: $(tail -1 "$WORK/info.err")"
[ "$(podman info --format '{{.Store.GraphRoot}}' 2>/dev/null)" = "$WORK/storage" ] \
    || skip "podman ignores CONTAINERS_STORAGE_CONF (this script uses a private store only)"

# ---- 1. the base image -----------------------------------------------------
t0=$(date +%s)
if ! debootstrap --variant=minbase bookworm "$WORK/base" http://deb.debian.org/debian \
    >"$WORK/debootstrap.log" 2>&1; then
    tail -5 "$WORK/debootstrap.log"
    skip "debootstrap of bookworm from deb.debian.org failed"
fi
rm -rf "$WORK/base/var/cache/apt/archives/"*.deb "$WORK/base/var/lib/apt/lists/"*
tar -C "$WORK/base" -c . | podman import - docker.io/library/debian:bookworm >/dev/null 2>&1 \
    || skip "podman import of the debootstrap tree failed"
podman tag docker.io/library/debian:bookworm docker.io/library/debian:bookworm-slim
rm -rf "$WORK/base"
note "base image: debootstrap --variant=minbase bookworm, $(($(date +%s) - t0)) s"

# Can podman run a container at all, and with which runtime? crun 1.8
# (bookworm) refuses hybrid cgroup hierarchies (cgroup v1 plus a v2 mount
# holding a controller); runc accepts them.
if ! podman run --rm --network=none "${ULIMITS[@]}" debian:bookworm true \
    >/dev/null 2>"$WORK/run.err"; then
    note "the default runtime cannot start a container: $(tail -1 "$WORK/run.err")"
    if command -v runc >/dev/null 2>&1 \
        && podman run --runtime runc --rm --network=none "${ULIMITS[@]}" \
            debian:bookworm true >/dev/null 2>"$WORK/run.err"; then
        RUNTIME=(--runtime runc)
        write_conf runc
        note "using runc (podman-compose too, through containers.conf)"
    else
        skip "podman cannot run a container here: $(tail -1 "$WORK/run.err")"
    fi
fi

# ---- 2. the build ----------------------------------------------------------
# Behind a TLS-intercepting proxy, npm needs its CA (the Dockerfile's ARG
# NODE_EXTRA_CA_CERTS, build stage only): the host's, if it names one.
CA=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ]; then
    CA=(-v "$NODE_EXTRA_CA_CERTS:/run/extra-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/extra-ca.crt)
    note "npm in the build trusts \$NODE_EXTRA_CA_CERTS ($NODE_EXTRA_CA_CERTS)"
fi
t0=$(date +%s)
# --format docker: the OCI format has no HEALTHCHECK; --layers=false: no
# cache of intermediate images (the store is thrown away anyway)
if podman build "${RUNTIME[@]}" --pull=never --network=host --format docker \
    --layers=false "${ULIMITS[@]}" "${CA[@]}" -f "$ROOT/deploy/Dockerfile" -t "$IMAGE" "$ROOT" \
    >"$WORK/build.log" 2>&1; then
    build_s=$(($(date +%s) - t0))
    size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
    ok "podman build -f deploy/Dockerfile ($build_s s; image $((size / 1000000)) MB)"
else
    tail -20 "$WORK/build.log"
    bad "podman build -f deploy/Dockerfile (log above)"
    finish
fi
hc=$(podman image inspect --format '{{json .Config.Healthcheck}}' "$IMAGE" 2>/dev/null)
case "$hc" in
    *healthz*) ok "the image keeps its HEALTHCHECK" ;;
    *) bad "the image has no HEALTHCHECK: $hc" ;;
esac

# ---- 3. the container, as deploy/Dockerfile's header runs it ---------------
# podman's equivalents of the docker run line: the same options, plus
# --read-only-tmpfs=false (podman's --read-only otherwise also mounts
# tmpfs on /run and /var/tmp; docker mounts only the --tmpfs asked for).
# Connections published from the host's loopback reach the container from
# the podman network's gateway: that is trusted_proxy.
gateway=$(podman network inspect podman --format '{{range .Subnets}}{{.Gateway}}{{end}}' \
    2>/dev/null)
run_container() {
    podman run -d --name "$NAME" "${RUNTIME[@]}" \
        --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
        --cap-drop ALL --cap-add CHOWN --cap-add DAC_OVERRIDE --cap-add FOWNER \
        --cap-add SETUID --cap-add SETGID \
        --security-opt no-new-privileges --read-only --read-only-tmpfs=false --tmpfs /tmp \
        "${ULIMITS[@]}" \
        -v attnjudge-check-data:/var/lib/attnjudge -p "127.0.0.1:$PORT:8080" \
        "$IMAGE" --set "trusted_proxy=${gateway:-10.88.0.1}"
}
started=1
for _ in 1 2 3; do
    PORT=$(free_port)
    podman rm -f "$NAME" >/dev/null 2>&1
    if run_container >/dev/null 2>"$WORK/run.err"; then
        started=0
        break
    fi
    # a port taken between the probe and the run: probe again
    grep -qi "address already in use" "$WORK/run.err" || break
done
if [ "$started" -ne 0 ]; then
    bad "podman run: $(tail -3 "$WORK/run.err")"
    finish
fi
STARTED=1
ok "podman run (127.0.0.1:$PORT -> 8080, trusted_proxy=${gateway:-10.88.0.1})"

# ---- 4. the API --------------------------------------------------------------
t0=$(date +%s)
api_checks "$PORT"
note "API checks: $(($(date +%s) - t0)) s"

# ---- 5. health check, privileges, stop ---------------------------------------
if podman healthcheck run "$NAME" >/dev/null 2>&1; then
    ok "podman healthcheck run: the image's HEALTHCHECK (curl /healthz) passes"
else
    bad "podman healthcheck run: the image's HEALTHCHECK fails"
fi
podman logs "$NAME" >"$WORK/server.log" 2>&1
if grep -q "running as attnjudge (uid [0-9]*); sandboxes run as nobody" "$WORK/server.log"; then
    ok "the server dropped to attnjudge; its sandboxes run as nobody"
else
    bad "no privilege drop in the log: $(head -3 "$WORK/server.log")"
fi
peer=$(grep -m1 -o '[0-9a-f.:]* "GET /healthz"' "$WORK/server.log" | cut -d' ' -f1)
if [ -n "$peer" ] && [ "$peer" = "${gateway:-10.88.0.1}" ]; then
    ok "the access log's peer is the podman gateway ($peer): trusted_proxy is right"
else
    bad "the access log's peer is '$peer', not the gateway ${gateway:-10.88.0.1}"
fi
t0=$(date +%s)
podman stop -t 60 "$NAME" >/dev/null 2>&1
STARTED=0
code=$(podman inspect --format '{{.State.ExitCode}}' "$NAME" 2>/dev/null)
if [ "$code" = 0 ]; then
    ok "podman stop: SIGTERM, exit status 0 after $(($(date +%s) - t0)) s"
else
    bad "podman stop: exit status $code"
    tail -5 "$WORK/server.log"
fi
podman rm -f "$NAME" >/dev/null 2>&1

# ---- 6. deploy/compose.yaml with podman-compose ------------------------------
if ! command -v podman-compose >/dev/null 2>&1; then
    note "compose: not checked (no podman-compose)"
    finish
fi
t0=$(date +%s)
if podman build "${RUNTIME[@]}" --pull=never --network=host --format docker --layers=false \
    "${ULIMITS[@]}" -f "$ROOT/tests/deploy/postgres.Dockerfile" \
    -t docker.io/library/postgres:15-bookworm "$ROOT/tests/deploy" \
    >"$WORK/pgbuild.log" 2>&1; then
    ok "the postgres:15-bookworm stand-in built ($(($(date +%s) - t0)) s)"
else
    tail -20 "$WORK/pgbuild.log"
    bad "the postgres:15-bookworm stand-in did not build (log above)"
    finish
fi
# the compose file as it is, but for the published port; `build: ..` is
# not used (the image is there)
PORT=$(free_port)
mkdir -p "$WORK/compose/deploy"
sed "s/\"127.0.0.1:8080:8080\"/\"127.0.0.1:$PORT:8080\"/" "$ROOT/deploy/compose.yaml" \
    >"$WORK/compose/deploy/compose.yaml"
if ! grep -q "127.0.0.1:$PORT:8080" "$WORK/compose/deploy/compose.yaml"; then
    bad "deploy/compose.yaml no longer publishes \"127.0.0.1:8080:8080\""
    finish
fi
COMPOSE_UP=1
if (cd "$WORK/compose/deploy" \
    && ATTNJUDGE_DB_PASSWORD=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n') \
        podman-compose -p "$PROJECT" up -d) >"$WORK/compose.log" 2>&1; then
    ok "podman-compose up -d: $(podman ps --format '{{.Names}}' | grep -c "^${PROJECT}_") containers"
else
    tail -20 "$WORK/compose.log"
    bad "podman-compose up -d (log above)"
    finish
fi
t0=$(date +%s)
api_checks "$PORT" 2
note "compose API checks: $(($(date +%s) - t0)) s"
# a verdict from a front end with workers = 0 came from a judge host
judged=0
for s in judge1 judge2; do
    podman logs "${PROJECT}_${s}_1" 2>&1 | grep -q "judge host .* judging with" && judged=$((judged + 1))
done
if [ "$judged" = 2 ]; then
    ok "both judge hosts started (attnjudge worker)"
else
    bad "$judged of 2 judge hosts logged their start"
fi
if (cd "$WORK/compose/deploy" && ATTNJUDGE_DB_PASSWORD=x podman-compose -p "$PROJECT" down -v -t 60) \
    >>"$WORK/compose.log" 2>&1 \
    && [ "$(podman ps -a --format '{{.Names}}' | grep -c "^${PROJECT}_")" = 0 ]; then
    ok "podman-compose down -v: no container left"
else
    bad "podman-compose down -v"
fi
COMPOSE_UP=0

finish
