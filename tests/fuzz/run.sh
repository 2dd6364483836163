#!/bin/sh
# make test's replay of every kept fuzz input (tests/fuzz/<target>/: seeds,
# the merged corpus, and every crash input found so far) through its
# target, built with the ordinary compiler (or under SANITIZE) and
# tests/fuzz/replay.c as main. Ends with "N passed, N failed" (inputs).
#
#   tests/fuzz/run.sh BUILD_DIR
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
# under SANITIZE=...,undefined, undefined behaviour fails the input (UBSan
# only prints by default)
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
passed=0
failed=0
for src in tests/fuzz/*.c; do
    t=$(basename "$src" .c)
    [ "$t" = replay ] && continue
    bin="$build/tests/fuzz_$t"
    if [ ! -x "$bin" ]; then
        echo "FAIL $t: $bin is not built (make test builds it)"
        failed=$((failed + 1))
        continue
    fi
    out=$("$bin" "tests/fuzz/$t" 2>&1)
    echo "$out" | grep -v ' passed, '
    p=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    [ -z "$p" ] && { echo "FAIL $t: the replay printed no summary"; f=$((${f:-0} + 1)); }
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
