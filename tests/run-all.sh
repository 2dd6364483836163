#!/bin/bash
# Runs the test suites and prints one summary line, "N passed, N failed".
#
#   tests/run-all.sh BUILD_DIR [SUITE ...]    only the named suites (every suite without any)
#   tests/run-all.sh --help                   the suites' names
#   make test [SUITE="SUITE ..."]             the same, after building
#
#   TEST_JOBS=N tests/run-all.sh ...          N suites side by side (default 2)
#
# Each suite prints its own lines and ends with "N passed, N failed"; this
# script adds them up and ends with a table of each suite's counts and wall
# time. Suites are independent (each makes its own temporary directory and
# takes random free ports), so they run TEST_JOBS at a time, the longest
# first, but never two that run servers at once; each suite's output is
# shown whole when it ends. The suites' names
# and what each checks are in usage() below; a new suite is one line there
# and one suite line at the end.
set -u

usage() {
    cat <<'USAGE'
usage: tests/run-all.sh BUILD_DIR [SUITE ...]

suites:
  unit        cmocka unit tests (BUILD_DIR/tests/test_*)
  format      every tracked C file is clang-formatted (one check)
  citations   every citation names a document in the repository (tests/check-repo.py)
  layers      libsandbox.a and libjudge.a use nothing of the layers above (tests/check-repo.py)
  shape       no C file over 800 lines, no test source over 1,000, no include circle in a folder (tests/check-repo.py)
  cli         the attnjudge command line (tests/cli/run.sh)
  corpus      the submission corpus: every verdict, tolerance margins (tests/run-corpus.py)
  hints       every problem's hints and walkthrough: solution accepted, math renders (tests/run-walkthroughs.py)
  attacks     the attack corpus (tests/run-attacks.py)
  torch       the reference implementations against PyTorch (tests/torch/)
  fuzz        every kept fuzz input replayed (tests/fuzz/run.sh)
  pg          PostgreSQL: the driver, the store, a cluster of hosts and the HTTP suite (tests/pg/run.sh)
  firstmake   the first make on a machine without the packages (tests/build/first-run.sh)
  http        the HTTP server (tests/server/run.sh)
  privilege   serve started as root runs as run_as (tests/server/privilege.sh)
  browser     the web UI in headless Chromium (tests/browser/run.sh)
  lti         LTI 1.3 launches, deep linking and checks against a test platform, in Chromium too (tests/lti/run.sh)
  deploy      deploy/: the systemd unit emulated, nginx in front, the Dockerfile, the alert rules (tests/deploy/run.sh)

TEST_JOBS=N runs N suites side by side (default 2; 1 runs them one by one).
USAGE
}

case "${1:-}" in
-h | --help)
    usage
    exit 0
    ;;
esac
build=${1:-build}
[ $# -gt 0 ] && shift
known=" $(usage | awk '/^  [a-z]/ { print $1 }' | tr '\n' ' ')"
for name in "$@"; do
    if ! echo "$known" | grep -qF " $name "; then
        echo "run-all: no suite named '$name'" >&2
        usage >&2
        exit 2
    fi
done
jobs=${TEST_JOBS:-2}
case "$jobs" in
'' | *[!0-9]* | 0)
    echo "run-all: TEST_JOBS must be a number of suites, 1 or more (got '$jobs')" >&2
    exit 2
    ;;
esac
only=" $* "
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
out=$(mktemp -d /tmp/attnjudge-test.XXXXXX)
# a suite still running when this script is stopped is stopped with it
# (each runs in a process group of its own, led by the pid start() wrote),
# and what it printed so far is shown
stop_running() {
    for pidfile in "$out"/*.pid; do
        [ -f "$pidfile" ] && [ ! -f "${pidfile%.pid}.seconds" ] || continue
        kill -TERM -- "-$(cat "$pidfile")" 2>/dev/null
        echo "=== ${title[$(basename "$pidfile" .pid)]}: stopped; its output so far"
        cat "${pidfile%.pid}.log"
    done
}
trap 'stop_running; rm -rf "$out"' EXIT
trap 'exit 130' INT TERM

# cmocka binaries print their own format; turn it into the common line
run_cmocka() {
    passed=0
    failed=0
    for t in "$build"/tests/test_*; do
        [ -x "$t" ] || continue
        "$t" >"$out/unit.out" 2>&1
        status=$?
        cat "$out/unit.out"
        p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$out/unit.out" | grep -oE '[0-9]+' | head -1)
        f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$out/unit.out" | grep -oE '[0-9]+' | head -1)
        if [ -z "$p" ] && [ -z "$f" ]; then
            echo "FAIL $t: no cmocka summary (crashed?)"
            f=1
        elif [ "$status" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
            # every test passed, yet the binary failed: a sanitizer's report
            # (LeakSanitizer exits 23 after the summary) must not pass unseen
            echo "FAIL $t: exit status $status after its tests passed (a sanitizer report?)"
            f=1
        fi
        passed=$((passed + ${p:-0}))
        failed=$((failed + ${f:-0}))
    done
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# the committed .clang-format, checked on every C file (comments are not
# reflowed: the attack runner parses the attacks' header comments by line);
# one check, which names every file that is not formatted. One clang-format
# per hundred files: started once per file, it took minutes.
run_format() {
    n=$(git ls-files '*.c' '*.h' | wc -l)
    bad=$(git ls-files -z '*.c' '*.h' | xargs -0 -n 100 clang-format --dry-run --Werror 2>&1 |
        grep -oE '^[^:]+\.[ch]:[0-9]+:[0-9]+: error' | cut -d: -f1 | sort -u)
    if [ -z "$bad" ]; then
        echo "ok   all $n C files are clang-formatted"
        echo "1 passed, 0 failed"
        return 0
    fi
    for f in $bad; do
        echo "     not formatted: $f (clang-format -i $f)"
    done
    echo "FAIL $(echo "$bad" | wc -l) of $n C files are not clang-formatted (listed above)"
    echo "0 passed, 1 failed"
    return 1
}

# suite NAME TITLE COMMAND...: registers a suite if it is selected (every
# suite when none was named); the suites start in the order registered
order=()
declare -A title command
suite() {
    case "$only" in
    "  " | *" $1 "*) ;;
    *) return 0 ;;
    esac
    order+=("$1")
    title[$1]=$2
    command[$1]=$(printf '%q ' "${@:3}")
}

# start NAME: runs the suite in the background, in its own process group,
# its output to $out/NAME.log, its exit status and seconds beside it
start() {
    (
        began=$(date +%s)
        setsid bash -c "${command[$1]}" >"$out/$1.log" 2>&1 </dev/null &
        echo $! >"$out/$1.pid"
        wait $!
        # (quietly: when this script was stopped, $out may be gone)
        echo $? 2>/dev/null >"$out/$1.status"
        # the CPU time of every process of the suite that was waited for:
        # `times`' second line, this subshell's children, user and system
        # (into a file: in a pipeline `times` would run in a fork of its own)
        times 2>/dev/null >"$out/$1.times"
        awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] }
                       printf "%d\n", s + 0.5 }' "$out/$1.times" 2>/dev/null >"$out/$1.cpu"
        echo $(($(date +%s) - began)) 2>/dev/null >"$out/$1.seconds"
    ) &
}

# finish NAME: shows the suite's output and adds its counts
total_pass=0
total_fail=0
declare -A passed failed
finish() {
    local name=$1 status summary p f
    status=$(cat "$out/$name.status")
    echo "=== ${title[$name]} ($(cat "$out/$name.seconds") s)"
    cat "$out/$name.log"
    summary=$(grep -E '^[A-Za-z]*:? ?[0-9]+ passed, [0-9]+ failed' "$out/$name.log" | tail -n 1)
    p=$(echo "$summary" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
    f=$(echo "$summary" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    if [ -z "$summary" ]; then
        # a suite that printed no summary counts as one failure
        p=0
        f=1
        echo "(${title[$name]} printed no summary line)"
    elif [ "$status" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
        f=1
        echo "(${title[$name]} exited with status $status)"
    fi
    passed[$name]=${p:-0}
    failed[$name]=${f:-0}
    total_pass=$((total_pass + ${p:-0}))
    total_fail=$((total_fail + ${f:-0}))
}

# The longest suites first, so that the short ones fill the gaps at the end
# (the HTTP suite and its PostgreSQL pass one after the other, the rest
# beside them).
suite http "HTTP server" bash tests/server/run.sh "$build"
suite pg "PostgreSQL" sh tests/pg/run.sh "$build"
suite browser "browser" sh tests/browser/run.sh "$build/attnjudge"
suite lti "LTI 1.3" sh tests/lti/run.sh "$build"
suite cli "command line" sh tests/cli/run.sh "$build/attnjudge"
suite corpus "submission corpus" /usr/bin/python3 tests/run-corpus.py "$build/attnjudge"
suite attacks "attack corpus" /usr/bin/python3 tests/run-attacks.py "$build/attnjudge"
suite hints "hints and walkthroughs" /usr/bin/python3 tests/run-walkthroughs.py "$build/attnjudge"
suite deploy "deployment files" bash tests/deploy/run.sh "$build"
suite privilege "server privileges" bash tests/server/privilege.sh "$build"
suite unit "unit tests" run_cmocka
suite torch "references vs PyTorch" /usr/bin/python3 tests/torch/check_reference.py
suite firstmake "first make on a fresh machine" sh tests/build/first-run.sh
suite fuzz "fuzz inputs replayed" sh tests/fuzz/run.sh "$build"
suite format "format" run_format
suite citations "citations" /usr/bin/python3 tests/check-repo.py citations
suite layers "layers" /usr/bin/python3 tests/check-repo.py layers "$build"
suite shape "the house's shape" /usr/bin/python3 tests/check-repo.py shape
export -f run_cmocka run_format
export build out

# The two suites that drive whole servers at full load (the HTTP suite
# and its PostgreSQL pass: a server with its judge workers and a client,
# about 1.3 cores each) run one at a time: tried side by side, their
# scenarios ran 3-5 times slower than alone, and uploads and a
# 200-submission burst outlasted their bounds. Every other suite asks at
# most a core (cli and corpus judge from the command line, about 1; the
# browser 0.5, deploy 0.8, LTI 0.3, by their CPU over their wall time) and
# runs beside anything, as cli and corpus always ran beside the HTTP suite.
SERVER_SUITES=" http pg "
is_server_suite() { case "$SERVER_SUITES" in *" $1 "*) return 0 ;; esac; return 1; }

began=$(date +%s)
declare -A started
running=0
server_running=""
done_count=0
while [ "$done_count" -lt "${#order[@]}" ]; do
    # start the first suites not started yet that may run now
    for name in "${order[@]}"; do
        [ "$running" -lt "$jobs" ] || break
        [ -z "${started[$name]+set}" ] || continue
        if is_server_suite "$name"; then
            [ -z "$server_running" ] || continue
            server_running=$name
        fi
        started[$name]=1
        running=$((running + 1))
        start "$name"
        # a line now, the suite's output when it ends
        echo "... ${title[$name]} started"
    done
    wait -n 2>/dev/null
    # every suite whose status file appeared since the last pass
    for name in "${order[@]}"; do
        if [ -n "${started[$name]+set}" ] && [ -f "$out/$name.seconds" ] &&
            [ ! -f "$out/$name.shown" ]; then
            touch "$out/$name.shown"
            finish "$name"
            done_count=$((done_count + 1))
            running=$((running - 1))
            [ "$server_running" != "$name" ] || server_running=""
        fi
    done
done

# seconds: the suite's wall time; cpu: the user and system time of its
# processes (not of daemons it starts, such as PostgreSQL's server). The
# cpu total over the machine's cores is the least wall time any schedule
# of these suites could reach here: the floor the wall time is read against.
echo
echo "suite        passed  failed  seconds      cpu"
cpu_total=0
for name in $(usage | awk '/^  [a-z]/ { print $1 }'); do
    [ -n "${passed[$name]+set}" ] || continue
    cpu=$(cat "$out/$name.cpu" 2>/dev/null)
    cpu_total=$((cpu_total + ${cpu:-0}))
    printf '%-12s %6d  %6d  %7d  %7d\n' "$name" "${passed[$name]}" "${failed[$name]}" \
        "$(cat "$out/$name.seconds")" "${cpu:-0}"
done
cores=$(nproc)
printf '%-12s %6d  %6d  %7d  %7d  (wall, %d side by side; cpu / %d cores = %d s)\n' all \
    "$total_pass" "$total_fail" $(($(date +%s) - began)) "$cpu_total" "$jobs" "$cores" \
    $((cpu_total / cores))
echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
