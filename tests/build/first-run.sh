#!/bin/sh
# The first `make` on a fresh machine works (issue 7, item 1).
#
#   tests/build/first-run.sh
#
# On a machine without the -dev packages, pkg-config knows none of the
# libraries until scripts/deps.sh has installed them. A Makefile that asks
# pkg-config while it is parsed gets empty flags, installs the packages,
# and then fails to link (undefined references to seccomp_*, json_*, ...).
# This test plays the fresh machine without removing anything: a pkg-config
# on PATH that fails until a marker file exists, and a deps script (make's
# DEPS) that only creates the marker. The first make must then build and
# link build/attnjudge; a make whose deps step installs nothing must stop
# with pkg-config's message, not a link error. And scripts/deps.sh, as
# root, waits while another apt holds its locks (unattended-upgrades at a
# fresh machine's boot) instead of failing the first make.
#
# Builds into a temporary directory (about 15 s of compiling); prints
# "ok ..." / "FAIL ..." and "N passed, N failed".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/attnjudge-first-run.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
PASS=0
FAIL=0
ok() { echo "ok $*"; PASS=$((PASS + 1)); }
bad() { echo "FAIL $*"; FAIL=$((FAIL + 1)); }

real_pkg_config=$(command -v pkg-config)
if [ -z "$real_pkg_config" ]; then
    echo "FAIL pkg-config is not installed (scripts/deps.sh build)"
    echo "0 passed, 1 failed"
    exit 1
fi
mkdir -p "$TMP/shim"
cat >"$TMP/shim/pkg-config" <<EOF
#!/bin/sh
# a machine whose -dev packages are not installed yet
[ -e "$TMP/installed" ] && exec "$real_pkg_config" "\$@"
echo "Package \$2 was not found in the pkg-config search path." >&2
exit 1
EOF
cat >"$TMP/shim/deps.sh" <<EOF
#!/bin/sh
# "installs" the packages: from now on pkg-config knows them
echo "\$1" >>"$TMP/deps-calls"
touch "$TMP/installed"
EOF
chmod +x "$TMP/shim/pkg-config" "$TMP/shim/deps.sh"

# make as a user types it: not as a sub-make of the make running this test
fresh_make() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u ATTNJUDGE_DEPS_DONE -u SANITIZE \
        PATH="$TMP/shim:$PATH" make -C "$ROOT" -j2 BUILD="$TMP/build" "$@"
}

# 1. the first make installs the packages and links
if fresh_make DEPS="$TMP/shim/deps.sh" "$TMP/build/attnjudge" >"$TMP/log" 2>&1; then
    ok "first make on a fresh machine builds and links attnjudge"
else
    bad "first make on a fresh machine builds and links attnjudge; its log:"
    grep -E 'error|undefined' "$TMP/log" | head -10
fi
if [ "$(cat "$TMP/deps-calls" 2>/dev/null)" = "build" ]; then
    ok "the deps step ran once, for the build set"
else
    bad "the deps step ran once, for the build set (calls: $(tr '\n' ' ' 2>/dev/null <"$TMP/deps-calls"))"
fi
if "$TMP/build/attnjudge" --help >/dev/null 2>&1; then
    ok "the binary of the first make runs"
else
    bad "the binary of the first make runs"
fi

# 2. the goal decides the set of packages (make test needs the test tools)
rm -f "$TMP/deps-calls"
fresh_make DEPS="$TMP/shim/deps.sh" -n test >/dev/null 2>&1
if [ "$(cat "$TMP/deps-calls" 2>/dev/null)" = "test" ]; then
    ok "make test asks for the test set"
else
    bad "make test asks for the test set (calls: $(tr '\n' ' ' 2>/dev/null <"$TMP/deps-calls"))"
fi

# 3. packages still missing after the deps step: a clear stop, no link error
rm -rf "$TMP/installed" "$TMP/build"
fresh_make DEPS=true "$TMP/build/attnjudge" >"$TMP/log2" 2>&1
status=$?
if [ "$status" -ne 0 ] && grep -q 'pkg-config cannot find' "$TMP/log2" &&
    ! grep -q 'undefined reference' "$TMP/log2"; then
    ok "missing packages stop the build with pkg-config's message"
else
    bad "missing packages stop the build with pkg-config's message (status $status)"
    tail -5 "$TMP/log2"
fi

# 4. scripts/deps.sh as root while another apt holds its locks (on a fresh
# machine unattended-upgrades runs at boot): it waits, then installs; any
# other apt error stops it at once. Fakes on PATH: dpkg-query (nothing is
# installed), id (root), sleep (no wait), and an apt-get that reports the
# lock of its lists twice.
mkdir -p "$TMP/apt"
printf '#!/bin/sh\nprintf "deinstall ok config-files"\n' >"$TMP/apt/dpkg-query"
printf '#!/bin/sh\n[ "$1" = -u ] && echo 0 || exec /usr/bin/id "$@"\n' >"$TMP/apt/id"
printf '#!/bin/sh\nexit 0\n' >"$TMP/apt/sleep"
cat >"$TMP/apt/apt-get" <<FAKE
#!/bin/sh
echo "\$*" >>"$TMP/apt-calls"
case "\$(cat "$TMP/apt-mode")" in
locked)
    [ "\$(wc -l <"$TMP/apt-calls")" -gt 2 ] && exit 0
    echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
    exit 100 ;;
*)
    echo "E: Unable to locate package no-such-package" >&2
    exit 100 ;;
esac
FAKE
chmod +x "$TMP/apt/dpkg-query" "$TMP/apt/id" "$TMP/apt/sleep" "$TMP/apt/apt-get"
echo locked >"$TMP/apt-mode"
PATH="$TMP/apt:$PATH" sh "$ROOT/scripts/deps.sh" build >"$TMP/deps.out" 2>&1
status=$?
calls=$(cut -d' ' -f3 "$TMP/apt-calls" | tr '\n' ' ')
if [ "$status" -eq 0 ] && [ "$calls" = "update update update install " ] &&
    grep -q "waiting for another apt or dpkg to finish" "$TMP/deps.out"; then
    ok "deps: a held apt lock is waited for, then the packages are installed"
else
    bad "deps: a held apt lock is waited for (status $status, apt-get calls: $calls)"
    cat "$TMP/deps.out"
fi
rm -f "$TMP/apt-calls"
echo broken >"$TMP/apt-mode"
PATH="$TMP/apt:$PATH" sh "$ROOT/scripts/deps.sh" build >"$TMP/deps.out" 2>&1
status=$?
if [ "$status" -ne 0 ] && [ "$(wc -l <"$TMP/apt-calls")" -eq 1 ] &&
    grep -q "Unable to locate package no-such-package" "$TMP/deps.out"; then
    ok "deps: any other apt error stops at once, with apt's message"
else
    bad "deps: any other apt error stops at once (status $status)"
    cat "$TMP/deps.out"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
