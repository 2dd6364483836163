#!/bin/sh
# The libFuzzer side of tests/fuzz/ (docs/fuzzing.md); make fuzz,
# make fuzz-merge and make fuzz-coverage call it.
#
#   tests/fuzz/fuzz.sh run BUILD SECONDS TARGET...
#       runs each target for SECONDS (wall) on its kept inputs
#       (tests/fuzz/<target>/) plus a scratch corpus (BUILD/corpus/<target>/,
#       where new inputs go); a crash input is written to
#       tests/fuzz/<target>/crash-<sha1>, where make test replays it from
#       then on. Prints one line of figures per target; exits 1 if any
#       target crashed.
#   tests/fuzz/fuzz.sh merge BUILD 0 TARGET...
#       adds to tests/fuzz/<target>/ the scratch inputs that reach new
#       coverage (libFuzzer -merge=1), to be committed.
#   tests/fuzz/fuzz.sh coverage BUILD 0 TARGET...
#       BUILD holds replay binaries built with clang's source coverage: runs
#       each over the kept inputs and the scratch corpus of build-fuzz, and
#       prints llvm-cov's line and function coverage of the parser's file.
set -u
mode=$1
build=$2
seconds=$3
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
status=0

# what each target exists to cover: whole files, or functions of a file
# ("file:function ...") that also holds code the target never calls
sources() {
    case "$1" in
    harness_result) echo judge/harness.c:harness_parse_result ;;
    expr) echo judge/expr.c ;;
    problem) echo judge/problem_load.c judge/problem_cases.c judge/problem_loader.c judge/problem_files.c judge/expr.c ;;
    markdown) echo judge/markdown.c ;;
    utf8) echo judge/utf8.c ;;
    isotime) echo util/isotime.c ;;
    request_json) echo server/request.c:request_json_body server/request.c:request_is_json_type ;;
    esac
}

for t in "$@"; do
    kept="tests/fuzz/$t"
    scratch="build-fuzz/corpus/$t"
    mkdir -p "$kept" "$scratch"
    case "$mode" in
    run)
        log="$build/fuzz-$t.log"
        # -timeout: one input may take 10 s at most (a hang is a finding);
        # -rss_limit_mb: so does memory; ASan's leak check runs at the end
        "$build/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix="$kept/" "$scratch" "$kept" >"$log" 2>&1
        rc=$?
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
        last=$(grep -E '^#[0-9]+' "$log" | tail -1)
        cov=$(echo "$last" | grep -oE 'cov: [0-9]+' | grep -oE '[0-9]+')
        ft=$(echo "$last" | grep -oE 'ft: [0-9]+' | grep -oE '[0-9]+')
        corp=$(echo "$last" | grep -oE 'corp: [0-9]+' | grep -oE '[0-9]+')
        printf '%-15s %10s execs %7s/s  cov %5s  ft %6s  corpus %5s' "$t" "${execs:-?}" \
            "${speed:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
        if [ "$rc" -ne 0 ]; then
            status=1
            echo "  CRASH (exit $rc): $(grep -oE 'Test unit written to .*' "$log" | tail -1)"
            grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -5 | sed 's/^/    /'
        else
            echo
        fi
        ;;
    merge)
        "$root/build-fuzz/fuzz/$t" -merge=1 "$kept" "$scratch" >"$build/merge-$t.log" 2>&1 ||
            status=1
        echo "$t: $(find "$kept" -type f | wc -l) kept inputs"
        ;;
    coverage)
        prof="$build/prof-$t"
        rm -rf "$prof"
        mkdir -p "$prof"
        LLVM_PROFILE_FILE="$prof/%m.profraw" "$build/tests/fuzz_$t" "$kept" "$scratch" \
            >"$build/replay-$t.log" 2>&1 || status=1
        llvm-profdata merge -sparse "$prof"/*.profraw -o "$prof/all.profdata" || status=1
        for src in $(sources "$t"); do
            file=${src%%:*}
            fn=${src#*:}
            if [ "$fn" = "$src" ]; then
                llvm-cov report "$build/tests/fuzz_$t" -instr-profile="$prof/all.profdata" \
                    "$file" 2>/dev/null | awk -v t="$t" -v f="$file" '
                    $1 ~ /\.c$/ { printf "%-15s %-38s lines %4d of %4d (%s)  branches %s\n",
                                  t, f, $8 - $9, $8, $10, $13 }'
            else
                llvm-cov report -show-functions "$build/tests/fuzz_$t" \
                    -instr-profile="$prof/all.profdata" "$file" 2>/dev/null |
                    awk -v t="$t" -v f="$file" -v fn="$fn" '
                    $1 == fn || $1 ~ (":" fn "$") {
                        printf "%-15s %-38s lines %4d of %4d (%s)  branches %s\n",
                               t, f ":" fn, $5 - $6, $5, $7, $10 }'
            fi
        done
        ;;
    esac
done
exit "$status"
