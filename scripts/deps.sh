#!/bin/sh
# Installs the Debian packages a make target needs, or says how.
#
#   scripts/deps.sh build|test|bench|fuzz
#
# As root, missing packages are installed with apt-get (after one
# 'apt-get update'). As anyone else, the one command to run is printed and the
# script fails, so 'make' stops before a confusing compiler error.
set -eu

build="gcc make pkg-config libc6-dev libmicrohttpd-dev libjansson-dev libsqlite3-dev libseccomp-dev libsodium-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libarchive-dev libpq-dev libcjose-dev libcurl4-openssl-dev"
# postgresql: the pg suite starts a throw-away cluster of its own
# (tests/pg/pglib.sh). nginx and openssl: the deploy suite puts
# deploy/nginx.conf in front of a server over TLS with a throw-away
# certificate; systemd for systemd-analyze verify of the unit
# (tests/deploy/run.sh; nothing is started); python3-yaml reads
# deploy/compose.yaml there, and prometheus brings promtool, which checks
# and unit-tests the sample alert rules (no Prometheus server is used)
test_pkgs="clang-format libcmocka-dev postgresql curl python3 python3-jwcrypto python3-numpy python3-torch python3-yaml chromium nginx openssl systemd prometheus"
bench_pkgs="wrk"
# make fuzz: clang with its libFuzzer, ASan and UBSan runtimes (Debian's
# libclang-rt-dev is the current clang's compiler-rt; llvm has llvm-cov)
fuzz_pkgs="clang libclang-rt-dev llvm"

case "${1:-build}" in
    build) want="$build" ;;
    test) want="$build $test_pkgs" ;;
    bench) want="$build $test_pkgs $bench_pkgs" ;;
    fuzz) want="$build $fuzz_pkgs" ;;
    *) echo "usage: $0 build|test|bench|fuzz" >&2; exit 2 ;;
esac

# the web UI is bundled with Node.js and npm (web/build.sh); a machine may
# have them from another packaging of nodejs, so look for the commands
command -v node >/dev/null 2>&1 || want="$want nodejs"
command -v npm >/dev/null 2>&1 || want="$want npm"

# The server, started as root, runs as this system user (run_as,
# docs/operations.md); make run and the server tests start it as root.
run_as_user() {
    [ "$(id -u)" -eq 0 ] || return 0
    getent passwd attnjudge >/dev/null 2>&1 && return 0
    echo "deps: creating the system user attnjudge (the server's run_as)"
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin attnjudge
}

missing=""
for p in $want; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
        *" installed") ;;
        *) missing="$missing $p" ;;
    esac
done
if [ -z "$missing" ]; then
    run_as_user
    exit 0
fi

# apt_get ARGS...: apt-get, waiting (up to 10 minutes) while another apt or
# dpkg holds their locks: on a fresh machine unattended-upgrades runs at
# boot, and two makes may install at once; apt itself fails at once on the
# lock of its package lists.
apt_get() {
    tries=0
    while :; do
        if out=$(apt-get -o DPkg::Lock::Timeout=60 "$@" 2>&1); then
            [ -z "$out" ] || printf '%s\n' "$out"
            return 0
        fi
        case "$out" in
        *"Could not get lock"* | *"Unable to lock"* | *"Could not open lock"*)
            tries=$((tries + 1))
            if [ "$tries" -ge 120 ]; then
                printf '%s\n' "$out" >&2
                echo "deps: apt's locks stayed held for 10 minutes; is an upgrade stuck?" >&2
                return 1
            fi
            [ "$tries" -gt 1 ] || echo "deps: waiting for another apt or dpkg to finish"
            sleep 5
            ;;
        *)
            printf '%s\n' "$out" >&2
            return 1
            ;;
        esac
    done
}

if [ "$(id -u)" -eq 0 ]; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt_get update -qq
    # shellcheck disable=SC2086
    apt_get install -y -qq --no-install-recommends $missing
    run_as_user
else
    echo "deps: missing Debian packages:$missing" >&2
    echo "deps: run: sudo apt-get install -y$missing" >&2
    exit 1
fi
