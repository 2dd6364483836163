# Sourced by tests/cli/run.sh (uses its $J, $py, $tmp, ok, bad, expect_exit,
# json_check): a crash on a sample test names the line of the student's own
# file (judge/crashsite.c), or says how to find it; a crash on a hidden test
# names no line, in either view. The submissions are tests/cli/crash/*.c;
# each file's comment says which line is at fault.

# crash_line NAME FILE SIGNAL TEXT: FILE crashes on the first sample test
# with SIGNAL, and that test's message ends with TEXT
crash_line() {
    expect_exit "crash $1: runtime_error, exit 1" 1 $J --problem softmax-stable --samples-only --json "tests/cli/crash/$2"
    json_check "crash $1: verdict runtime_error on sample-small, the rest not run" \
        "r['verdict']=='runtime_error' and r['tests'][0]['name']=='sample-small' and r['tests'][0]['verdict']=='runtime_error' and all(t['verdict']=='not_run' for t in r['tests'][1:])"
    if $py -c "import json,sys; m=json.load(open(sys.argv[1]))['tests'][0]['message']; sys.exit(0 if m.startswith(sys.argv[2]+':') and m.endswith(sys.argv[3]) else 1)" \
        "$tmp/out" "$3" "$4"; then
        ok "crash $1: the message says where"
    else
        bad "crash $1: the message says where (got: $(head -c 600 "$tmp/out"))"
    fi
}

crash_line "an out-of-bounds write" out_of_bounds_write.c SIGSEGV \
    ' It crashed at out_of_bounds_write.c:16: `y[r * cols * cols + c] = expf(x[r * cols + c] - m) / s;`.'
crash_line "a NULL read" null_read.c SIGSEGV \
    ' It crashed at null_read.c:12: `float m = row[0];`.'
crash_line "a stack overflow" stack_overflow.c SIGSEGV \
    ' It crashed at stack_overflow.c:10: `float rest = row_max(x + 1, n - 1, depth);`.'
crash_line "an integer division by zero" divide_by_zero.c SIGFPE \
    ' It crashed at divide_by_zero.c:12: `int every = cols / masked;`.'
crash_line "inside memset" library_call.c SIGSEGV \
    ' It crashed in a C library function called at library_call.c:10: `memset(y, 0, sizeof(float) * sizeof(float) * (size_t)rows * cols + 4096);`.'
unlocated=' The judge could not tell the line: download the sample case (the problem page'"'"'s "Download sample case", or `attnjudge export --samples-archive`) and run `make check-asan && ./check-asan`, which stops at the line of an out-of-bounds read or write.'
crash_line "in a tail-called memset (no line to be had)" unlocated.c SIGSEGV "$unlocated"
# a line table that names another file is not believed
crash_line "under #line \"attnjudge.h\"" line_directive.c SIGSEGV "$unlocated"

# the text report prints the same line under the test
expect_exit "crash: the text report, exit 1" 1 $J --problem softmax-stable --samples-only tests/cli/crash/null_read.c
grep -q "^  sample-small  *sample  runtime_error .*" "$tmp/out" &&
    grep -qF ' It crashed at null_read.c:12: `float m = row[0];`.' "$tmp/out" &&
    ok "crash: the text report names the line" || bad "crash: the text report names the line ($(cat "$tmp/out"))"

# a file named otherwise is named as the student named it
cp tests/cli/crash/null_read.c "$tmp/my-softmax.c"
expect_exit "crash: another file name, exit 1" 1 $J --problem softmax-stable --samples-only --json "$tmp/my-softmax.c"
json_check "crash: the message names the student's file name" \
    "r['tests'][0]['message'].endswith(' It crashed at my-softmax.c:12: \`float m = row[0];\`.')"

# a crash on a hidden test: no line, neither for the student nor in the
# full (instructor's) view, and nothing numeric in the student's view
expect_exit "hidden crash: student view, exit 1" 1 $J --problem softmax-stable --json tests/cli/crash/hidden_crash.c
cp "$tmp/out" "$tmp/hidden_crash.student"
json_check "hidden crash: runtime_error on the hidden test odd-sizes, no message shown" \
    "r['verdict']=='runtime_error' and [t for t in r['tests'] if t['name']=='odd-sizes'][0]['verdict']=='runtime_error' and 'message' not in [t for t in r['tests'] if t['name']=='odd-sizes'][0]"
json_check "hidden crash: the student's view names no file or line" \
    "'hidden_crash.c:' not in json.dumps(r) and 'It crashed' not in json.dumps(r) and 'check-asan' not in json.dumps(r)"
expect_exit "hidden crash: full view, exit 1" 1 $J --problem softmax-stable --json --full tests/cli/crash/hidden_crash.c
cp "$tmp/out" "$tmp/hidden_crash.full"
json_check "hidden crash: the full view has the signal only, no line" \
    "[t for t in r['tests'] if t['name']=='odd-sizes'][0]['message'].startswith('SIGSEGV: ') and 'hidden_crash.c:' not in json.dumps(r) and 'It crashed' not in json.dumps(r) and 'check-asan' not in json.dumps(r)"
if why=$($py tests/cli/hidden_view.py problems/softmax-stable/problem.json "$tmp/hidden_crash.student" "$tmp/hidden_crash.full"); then
    ok "hidden crash: nothing numeric about hidden tests in the student's view"
else
    bad "hidden crash: $why"
fi
