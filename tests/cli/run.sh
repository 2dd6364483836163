#!/bin/sh
# Tests of the attnjudge command line: help and usage errors, exit codes,
# the --json report's contents (what hidden tests may and may not reveal),
# export's .npy files, problem check, and the deployment secret.
#
#   tests/cli/run.sh build/attnjudge
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
py=/usr/bin/python3
tmp=$(mktemp -d /tmp/attnjudge-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
data=$tmp/data
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

# expect_exit NAME CODE COMMAND...: the command exits with CODE
expect_exit() {
    name=$1 code=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq "$code" ]; then ok "$name"; else bad "$name: exit $got, expected $code ($(head -c 300 "$tmp/err"))"; fi
}

# json_check NAME PYTHON-EXPRESSION: evaluated with r = the JSON in $tmp/out
json_check() {
    if $py -c "import json,sys; r=json.load(open('$tmp/out')); sys.exit(0 if ($2) else 1)" 2>/dev/null; then
        ok "$1"
    else
        bad "$1 (the report ends: $(tail -c 800 "$tmp/out"))"
    fi
}

J="$bin judge --data $data"

# help everywhere
expect_exit "attnjudge --help" 0 "$bin" --help
for c in judge export problem problems serve user worker backup; do
    expect_exit "attnjudge $c --help" 0 "$bin" "$c" --help
    grep -q usage "$tmp/out" && ok "$c --help prints usage" || bad "$c --help prints usage"
done
expect_exit "no command is a usage error" 2 "$bin"
expect_exit "unknown command is a usage error" 2 "$bin" frobnicate
expect_exit "judge without --problem" 2 $J tests/submissions/mha-cross/accepted/plain_float.c
expect_exit "judge without a file" 2 $J --problem mha-cross
expect_exit "judge of an unknown problem" 1 $J --problem no-such-problem x.c
expect_exit "judge of a bad slug" 1 $J --problem ../etc x.c

# the source limit is the server's default max_source_kib (64 KiB): a file
# of exactly that size is judged, one byte more is refused
pad() {
    $py -c "import sys; s=open(sys.argv[1],'rb').read(); n=int(sys.argv[2])-len(s)-5; sys.stdout.buffer.write(s+b'/*'+b'x'*n+b'*/\n')" "$@"
}
pad tests/submissions/gpt2-attention/accepted/plain_float.c 65536 >"$tmp/limit.c"
expect_exit "a source of 64 KiB is judged" 0 $J --problem gpt2-attention --samples-only "$tmp/limit.c"
pad tests/submissions/gpt2-attention/accepted/plain_float.c 65537 >"$tmp/limit.c"
expect_exit "a source over 64 KiB is refused" 1 $J --problem gpt2-attention "$tmp/limit.c"
grep -q "larger than 64 KiB" "$tmp/err" && ok "the refusal names the limit" || bad "the refusal names the limit"

# a correct file: exit 0, the report is complete
expect_exit "accepted exits 0" 0 $J --problem gpt2-attention --json \
    tests/submissions/gpt2-attention/accepted/plain_float.c
json_check "accepted report" \
    "r['verdict']=='accepted' and r['score']==100 and len(r['tests'])>=8 and all(t['verdict']=='accepted' for t in r['tests'])"
json_check "hidden tests reveal no values" \
    "all('first_mismatches' not in x and 'abs_err' not in x for t in r['tests'] if t['kind']=='hidden' for x in t.get('tensors', [])) and all('output' not in t for t in r['tests'] if t['kind']=='hidden')"
[ -f "$data/secret.key" ] && [ "$(stat -c %a "$data/secret.key")" = 600 ] &&
    ok "secret created with mode 0600" || bad "secret created with mode 0600"
[ "$(stat -c %a "$data")" = 700 ] && ok "data directory is 0700" || bad "data directory is 0700"

# the reference cache is keyed on everything that shapes the reference
# binary: its directory name is the BLAKE2b-128 of its manifest, and the
# manifest names the compiler version, every file of the build (the
# harness's protocol header included) and every compile and link flag
if $py - "$data" <<'PY'
import glob, hashlib, subprocess, sys
dirs = glob.glob(sys.argv[1] + "/cache/gpt2-attention-*")
assert len(dirs) == 1, dirs
d = dirs[0]
raw = open(d + "/manifest.txt", "rb").read()
assert hashlib.blake2b(raw, digest_size=16).hexdigest() == d.rsplit("-", 1)[1]
text = raw.decode()
run = lambda *a: subprocess.run(a, capture_output=True, text=True, check=True).stdout
gcc = "gcc %s %s\n" % (run("gcc", "-dumpfullversion").strip(), run("gcc", "-dumpmachine").strip())
assert gcc in text, (gcc, text)
assert "ld %s\n" % run("ld", "--version").splitlines()[0] in text
b2 = lambda path: hashlib.blake2b(open(path, "rb").read(), digest_size=32).hexdigest()
assert "\nfile reference.c %s\n" % b2("reference/gpt2-attention.c") in text
assert "problem.json %s\n" % b2("problems/gpt2-attention/problem.json") in text
assert "\nfile attnjudge.h " in text
# the harness object (call stub + runtime, compiled once per problem version):
# its own cache directory, keyed the same way; the reference's manifest names
# the object's hash and repeats the object's whole manifest
hdirs = glob.glob(sys.argv[1] + "/cache/harness-gpt2-attention-*")
assert len(hdirs) == 1, hdirs
hraw = open(hdirs[0] + "/manifest.txt", "rb").read()
assert hashlib.blake2b(hraw, digest_size=16).hexdigest() == hdirs[0].rsplit("-", 1)[1]
assert "\nfile attnjudge_harness.o %s\n" % b2(hdirs[0] + "/attnjudge_harness.o") in text
assert "".join("harness %s\n" % l for l in hraw.decode().splitlines()) in text
htext = hraw.decode()
assert gcc in htext and "ld %s\n" % run("ld", "--version").splitlines()[0] in htext
for name, path in [("harness_proto.h", "judge/harness_proto.h"), ("harness_rt.c", "judge/harness_rt.c")]:
    assert "\nfile %s %s\n" % (name, b2(path)) in htext, name
for name in ("attnjudge.h", "attnjudge_call.c"):
    assert "\nfile %s " % name in htext, name
for flag in ("-std=gnu11", "-O2", "-fno-lto", "-r"):
    assert "step1 %s\n" % flag in htext, flag
for flag in ("-std=gnu11", "-O2", "-static", "-lm", "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc,--wrap=posix_memalign,--wrap=memalign"):
    assert "step2 %s\n" % flag in text, flag
assert "step1 -Wall\n" in text and "step1 -include\n" in text
PY
then ok "reference cache key covers toolchain, harness files and every flag"; else bad "reference cache key covers toolchain, harness files and every flag"; fi

# the toolchain's identity is probed once and kept in cache/toolchain after
# a fingerprint of gcc, ld and libc (judge/judge.c, toolchain_identify)
tc=$data/cache/toolchain
head -n 1 "$tc" | grep -q "^fingerprint libc [0-9.]* /usr/bin/gcc:" && grep -qx "gcc $(gcc -dumpfullversion) $(gcc -dumpmachine)" "$tc" &&
    [ "$(stat -c %a "$tc")" = 600 ] && ok "toolchain: identity cached after its fingerprint" ||
    bad "toolchain: identity cached after its fingerprint ($(cat "$tc"))"
cp "$tc" "$tmp/toolchain.real"
# a cached answer under the current fingerprint is used as it is: the
# reference cache key takes it (a new directory is built under it)
{ head -n 1 "$tmp/toolchain.real"; printf 'gcc 99.9 cached-answer\nld cached\nlibc glibc 0\n'; } >"$tc"
expect_exit "toolchain: judged under the cached answer" 0 $J --problem gpt2-attention --samples-only \
    tests/submissions/gpt2-attention/accepted/plain_float.c
grep -lq "gcc 99.9 cached-answer" "$data"/cache/gpt2-attention-*/manifest.txt && grep -q cached-answer "$tc" &&
    ok "toolchain: the cached answer keys the reference cache" || bad "toolchain: the cached answer keys the reference cache"
# a stale fingerprint (an upgraded gcc) or a damaged file: probed again
for stale in "fingerprint libc 0 /usr/bin/gcc:0:0:0:0.0:0.0" "garbage"; do
    { echo "$stale"; printf 'gcc 99.9 stale-answer\nld stale\nlibc glibc 0\n'; } >"$tc"
    expect_exit "toolchain: judged after '$stale'" 0 $J --problem gpt2-attention --samples-only \
        tests/submissions/gpt2-attention/accepted/plain_float.c
    cmp -s "$tc" "$tmp/toolchain.real" && ok "toolchain: '$stale' probed again" ||
        bad "toolchain: '$stale' probed again ($(cat "$tc"))"
done

# mistake diagnosis (docs/problem-format.md, "Known mistakes")
expect_exit "accepted, again" 0 $J --problem gpt2-attention --json \
    tests/submissions/gpt2-attention/accepted/online_softmax.c
json_check "a correct solution gets no diagnosis" "r['verdict']=='accepted' and 'diagnosis' not in r"
expect_exit "a known mistake" 1 $J --problem gpt2-attention --json \
    tests/submissions/gpt2-attention/wrong_answer/missing_proj_bias.c
json_check "a known mistake is diagnosed: id, title, hint" \
    "r['diagnosis']=={'mistake':'missing-proj-bias','title':'attention without the c_proj bias','hint':r['diagnosis']['hint'],'evidence':'sample'} and len(r['diagnosis']['hint'])>20"
expect_exit "a known mistake, human output" 1 $J --problem gpt2-attention \
    tests/submissions/gpt2-attention/wrong_answer/missing_proj_bias.c
grep -q '^Your output matches attention without the c_proj bias\. Hint: ' "$tmp/out" &&
    ok "human output: Your output matches ... Hint: ..." || bad "human output: Your output matches ... Hint: ..."
# right on the sample tests (T <= 72), the no-causal-mask mistake on the
# hidden ones: wrong, and diagnosed from the failed hidden tests, by the
# mistake's words only: hidden tests stay redacted
sed 's/for (int s = 0; s <= t; s++)/for (int s = 0; s < (T > 72 ? T : t + 1); s++)/' \
    reference/gpt2-attention.c >"$tmp/hidden_only_mistake.c"
expect_exit "a mistake on hidden tests only" 1 $J --problem gpt2-attention --json \
    "$tmp/hidden_only_mistake.c"
json_check "a mistake on hidden tests only: wrong_answer, samples right, diagnosed from hidden tests" \
    "r['verdict']=='wrong_answer' and all(t['verdict']=='accepted' for t in r['tests'] if t['kind']=='sample') and r['diagnosis']['mistake']=='no-causal-mask' and r['diagnosis']['evidence']=='hidden' and r['diagnosis']['title']=='attention without the causal mask'"
json_check "a hidden diagnosis leaves hidden tests redacted (verdict, dims, time class only)" \
    "all(set(t)<={'name','kind','verdict','weight','dims','time_class'} for t in r['tests'] if t['kind']=='hidden')"
expect_exit "a mistake on hidden tests only, human output" 1 $J --problem gpt2-attention \
    "$tmp/hidden_only_mistake.c"
grep -q '^Your output on the failed hidden tests matches attention without the causal mask\. Hint: ' "$tmp/out" &&
    ok "human output: Your output on the failed hidden tests matches ..." ||
    bad "human output: Your output on the failed hidden tests matches ..."
# samples that teach: no max subtraction fails Run samples, with its name
expect_exit "no max subtraction, sample tests only" 1 $J --problem sdpa-single-head --json --samples-only \
    tests/submissions/sdpa-single-head/wrong_answer/no_max_subtraction.c
json_check "no max subtraction: wrong_answer on the samples, diagnosed" \
    "r['verdict']=='wrong_answer' and r['diagnosis']['mistake']=='no-max-subtraction' and r['diagnosis']['evidence']=='sample' and r['diagnosis']['title']=='a softmax that exponentiates the scores without subtracting the row maximum'"
# tests run in parallel on idle cores, the report is the sequential one: the
# first failing test's verdict, and after a fatal test every later one is
# not_run, even one that started beside it (--test-threads 1: one at a time)
awk 'NR==33 {print; print "    if (n_head == 1) { for (int i = 0; i < B * T * n_embd; i++) out[i] = 0; return; }"; print "    if (n_head == 6) __builtin_trap();"; next} {print}' \
    reference/gpt2-attention.c >"$tmp/fatal_mid.c"
for tt in 1 0 2; do
    expect_exit "a fatal hidden test, --test-threads $tt" 1 $J --problem gpt2-attention --json --full \
        --test-threads $tt "$tmp/fatal_mid.c"
    cp "$tmp/out" "$tmp/fatal_mid.$tt.json"
done
if $py - "$tmp"/fatal_mid.1.json "$tmp"/fatal_mid.0.json "$tmp"/fatal_mid.2.json <<'PY'
import json, sys
def view(path):
    r = json.load(open(path))
    return (r["verdict"], r["score"], [(t["name"], t["verdict"], t.get("message"), t.get("mismatches"),
                                        sorted(k for k in t if k not in ("time_ms", "wall_ms", "compare_ms", "time_class")))
                                       for t in r["tests"]])
one = view(sys.argv[1])
assert one[0] == "wrong_answer", one[0]
verdicts = [t[1] for t in one[2]]
# the sample tests and batches-odd-sizes pass, one-head is wrong,
# head-dim-one traps, and nothing after it runs
names = [t[0] for t in one[2]]
k = names.index("one-head")
assert names[k + 1] == "head-dim-one", names
assert verdicts[:k + 2] == ["accepted"] * k + ["wrong_answer", "runtime_error"], verdicts
assert verdicts[k + 2:] == ["not_run"] * (len(verdicts) - k - 2), verdicts
for other in sys.argv[2:]:
    assert view(other) == one, (other, view(other), one)
PY
then ok "parallel tests: the same report as one at a time"; else bad "parallel tests: the same report as one at a time"; fi
expect_exit "--test-threads wants a number" 2 $J --problem gpt2-attention --test-threads x "$tmp/fatal_mid.c"

# problem check refuses mistakes that cannot be diagnosed
mkdir -p "$tmp/mk"
cp -r problems/gpt2-attention "$tmp/mk/"
cp reference/gpt2-attention.c "$tmp/mk/gpt2-attention/reference.c"
cp reference/gpt2-attention.c "$tmp/mk/gpt2-attention/mistakes/missing-proj-bias.c"
expect_exit "problem check: a mistake that is the reference" 1 "$bin" problem check --data "$data" --search-budget 500 "$tmp/mk/gpt2-attention"
grep -q 'mistakes/missing-proj-bias.c: accepted on every test, so it is no mistake' "$tmp/out" &&
    ok "problem check names the accepted mistake" || bad "problem check names the accepted mistake ($(grep mistakes "$tmp/out"))"
cp "$tmp/hidden_only_mistake.c" "$tmp/mk/gpt2-attention/mistakes/missing-proj-bias.c"
expect_exit "problem check: a mistake right on the samples" 1 "$bin" problem check --data "$data" "$tmp/mk/gpt2-attention"
grep -q 'mistakes/missing-proj-bias.c: matches the reference on every sample test' "$tmp/out" &&
    ok "problem check names the undiagnosable mistake" || bad "problem check names the undiagnosable mistake ($(grep mistakes "$tmp/out"))"
cp problems/gpt2-attention/mistakes/no-scale.c "$tmp/mk/gpt2-attention/mistakes/missing-proj-bias.c"
sed -i 's/"id": "missing-proj-bias"/"id": "no-scale-again"/' "$tmp/mk/gpt2-attention/problem.json"
cp problems/gpt2-attention/mistakes/no-scale.c "$tmp/mk/gpt2-attention/mistakes/no-scale-again.c"
expect_exit "problem check: a mistake shadowed by an earlier one" 1 "$bin" problem check --data "$data" "$tmp/mk/gpt2-attention"
grep -q "mistakes/no-scale-again.c: its sample outputs match those of the earlier mistake 'no-scale'" "$tmp/out" &&
    ok "problem check names the shadowing mistake" || bad "problem check names the shadowing mistake ($(grep mistakes "$tmp/out"))"

# --samples-only; printed text on samples
expect_exit "samples only" 0 $J --problem mha-fused-qkv --json --samples-only \
    tests/submissions/mha-fused-qkv/accepted/debug_printf.c
json_check "samples only runs only samples, shows printed text" \
    "all(t['kind']=='sample' for t in r['tests']) and any(t.get('output') for t in r['tests'])"

# a wrong file: sample feedback in tensor coordinates, hidden feedback without values
expect_exit "wrong answer exits 1" 1 $J --problem gpt2-attention --json \
    tests/submissions/gpt2-attention/wrong_answer/no_causal_mask.c
json_check "wrong answer: first mismatch by coordinates on a sample" \
    "r['verdict']=='wrong_answer' and r['tests'][0]['kind']=='sample' and r['tests'][0]['tensors'][0]['first_mismatches'][0]['at'].startswith('out[') and len(r['tests'][0]['tensors'][0]['abs_err'])==r['tests'][0]['tensors'][0]['elements']"
json_check "wrong answer: score is the weighted share" "0 <= r['score'] < 100"
expect_exit "hidden failure" 1 $J --problem mha-cross --json \
    tests/submissions/mha-cross/wrong_answer/overflow_fallback_too_late.c
json_check "hidden failure: name, dims, weight, verdict and time class only" \
    "[t for t in r['tests'] if t['verdict']!='accepted'][0]['kind']=='hidden' and all(set(t)<={'name','kind','verdict','weight','dims','time_class'} for t in r['tests'] if t['kind']=='hidden')"
expect_exit "hidden failure, --full" 1 $J --problem mha-cross --json --full \
    tests/submissions/mha-cross/wrong_answer/overflow_fallback_too_late.c
json_check "--full: hidden failures carry their statistics and message" \
    "all(k in [t for t in r['tests'] if t['verdict']!='accepted'][0] for k in ('max_abs_err','mismatches','message','time_ms'))"
expect_exit "hidden failure, human output" 1 $J --problem mha-cross \
    tests/submissions/mha-cross/wrong_answer/no_max_subtraction.c
if grep ' hidden ' "$tmp/out" | grep -q 'max abs err\| ms '; then
    bad "human output hides hidden tests' statistics"
else
    ok "human output hides hidden tests' statistics"
fi
grep -q -- '--full shows every measurement' "$tmp/out" && ok "human output says how to see more" ||
    bad "human output says how to see more"

# a crash in a sample test, in plain words (judge/explain.c): the signal's
# meaning, the tensors this test passes as NULL, and in a problem with a
# mask-like (u8) input a hint on the mask's shape, derived from the
# parameters; none elsewhere
SEGV='SIGSEGV: the function read or wrote outside an array (an index past an end or below 0, a NULL pointer, or a local array too large for the stack).'
expect_exit "per-batch mask index" 1 $J --problem mha-cross --json --full \
    tests/submissions/mha-cross/runtime_error/mask_indexed_per_batch.c
json_check "per-batch mask index: SIGSEGV in words with a hint on the mask's shape" \
    "[t for t in r['tests'] if t['verdict']!='accepted'][0]['message']=='$SEGV Hint: \`mask\` has shape (Tq, Tk), with no B dimension: one mask serves every batch. It may be NULL. It crashed at mask_indexed_per_batch.c:40: \`if (mask && mask[(size_t)i * Tk + j]) {\`.'"
expect_exit "NULL mask read" 1 $J --problem mha-cross --json \
    tests/submissions/mha-cross/runtime_error/null_mask_dereference.c
json_check "NULL mask read: the message says this test's mask is NULL" \
    "r['tests'][1]['message']=='$SEGV In this test \`mask\` is NULL: does the function read it without checking? Hint: \`mask\` has shape (Tq, Tk), with no B dimension: one mask serves every batch. It crashed at null_mask_dereference.c:38: \`if (mask[(size_t)i * Tk + j]) {\`.'"
json_check "a crash has no error statistics (null, shown as —)" \
    "all(r['tests'][1][k] is None for k in ('max_abs_err','max_rel_err','mismatches'))"
expect_exit "crash without a mask input" 1 $J --problem mha-block-postln --json \
    tests/submissions/mha-block-postln/runtime_error/null_scratch_dereference.c
json_check "crash without a mask input: no hint, the line" "r['tests'][0]['message']=='$SEGV It crashed at null_scratch_dereference.c:13: \`c[(size_t)m * N + n] = acc;\`.'"
# the same crash in hidden tests only (the package without its B = 2 masked
# sample): the message, seen with --full, carries no hint
mkdir -p "$tmp/nohint"
cp -r problems/mha-cross "$tmp/nohint/"
$py -c "
import json; p='$tmp/nohint/mha-cross/problem.json'; d=json.load(open(p))
d['tests']=[t for t in d['tests'] if t['name']!='sample-two-batches-masked']
json.dump(d, open(p, 'w'))"
expect_exit "per-batch mask index, hidden tests only" 1 $J --problem mha-cross --json --full \
    --problems "$tmp/nohint" --reference reference \
    tests/submissions/mha-cross/runtime_error/mask_indexed_per_batch.c
json_check "hidden crash: no hint" \
    "all(t['kind']=='sample' for t in r['tests'] if 'Hint:' in (t.get('message') or '')) and any(t['kind']=='hidden' and t.get('message')=='$SEGV' for t in r['tests'])"

# output that is NaN, in plain words (judge/explain.c): never written (still
# the harness's 0xFF fill) or computed by the code, per sample test, with
# counts and the first coordinates; in the error map, null marks an element
# never written
expect_exit "NaN never written" 1 $J --problem softmax-stable --json \
    tests/submissions/softmax-stable/wrong_answer/last_row_never_written.c
export UNWRITTEN="still the judge's fill pattern (0xFFFFFFFF), so your code never assigned a value there (a loop that stops early or skips a part?), or copied it from malloc'd memory it never filled, which starts with the same bytes"
json_check "NaN never written: every failing sample test has its own message" \
    "(lambda u: [t['message'] for t in r['tests'] if t['name'] in ('sample-small','sample-large-logits')]==['y: 5 of 15 elements are NaN, never written (first at y[2, 0], y[2, 1], y[2, 2]): '+u, 'y: 6 of 24 elements are NaN, never written (first at y[3, 0], y[3, 1], y[3, 2]): '+u])(__import__('os').environ['UNWRITTEN'])"
json_check "NaN never written: counts, coordinates and the map" \
    "(lambda y: y['nonfinite_kinds']==[{'kind':'nan_unwritten','count':5,'label':'NaN, never written','explanation':__import__('os').environ['UNWRITTEN'],'first':[{'at':'y[2, 0]','index':[2,0]},{'at':'y[2, 1]','index':[2,1]},{'at':'y[2, 2]','index':[2,2]}]}] and y['abs_err'][10:]==[None]*5 and all(isinstance(v,float) for v in y['abs_err'][:10]) and y['first_mismatches'][0]['kind']=='nan_unwritten' and y['message']==r['tests'][0]['message'])(r['tests'][0]['tensors'][0])"
expect_exit "NaN never written, human output" 1 $J --problem softmax-stable \
    tests/submissions/softmax-stable/wrong_answer/last_row_never_written.c
grep -qxF "      y: 6 of 24 elements are NaN, never written (first at y[3, 0], y[3, 1], y[3, 2]): $UNWRITTEN" "$tmp/out" &&
    ok "human output: the message on its own line" || bad "human output: the message on its own line ($(cat "$tmp/out"))"
expect_exit "NaN computed" 1 $J --problem softmax-stable --json \
    tests/submissions/softmax-stable/wrong_answer/subtracts_row_min.c
json_check "NaN computed: named as computed, with its coordinates" \
    "r['tests'][1]['message']=='y: 4 of 24 elements are NaN, computed (first at y[0, 5], y[1, 5], y[3, 3]): your code computed NaN there: exp overflow? 0/0? a division by a zero sum?' and [k['kind'] for k in r['tests'][1]['tensors'][0]['nonfinite_kinds']]==['nan_computed'] and r['tests'][1]['tensors'][0]['abs_err'].count('Infinity')==4"

# a time limit: no outputs, so no error statistics: null in JSON, "—" printed
# (a sleeping program: the wall clock stops it whatever the machine's load)
expect_exit "time limit, human output" 1 $J --problem mha-fused-qkv \
    tests/submissions/mha-fused-qkv/time_limit/sleeps_waiting_for_workers.c
grep -q "^  sample-tiny  *sample  time_limit  .* ms  max abs err —$" "$tmp/out" &&
    grep -qxF "      wall-clock time over the limit of 3000 ms (sleeping, stopped or blocked): the program waited for something that never came" "$tmp/out" &&
    grep -q "^  sample-two-batches  *sample  not_run  .* max abs err —$" "$tmp/out" &&
    ! grep -q "max abs err 0" "$tmp/out" &&
    ok "time limit: — for the error, the limit in words" || bad "time limit: — for the error, the limit in words ($(cat "$tmp/out"))"

# The exfiltration programs (tests/attacks/exfil_*.c) on every test: the
# student's view carries nothing numeric about hidden tests, the full view
# (--full, for instructors) carries everything.
for x in exfil_nan_probe exfil_input_scale exfil_exit_code; do
    $J --problem mha-fused-qkv --json "tests/attacks/$x.c" >"$tmp/$x.student" 2>"$tmp/err"
    $J --problem mha-fused-qkv --json --full "tests/attacks/$x.c" >"$tmp/$x.full" 2>"$tmp/err"
    has=""
    [ "$x" = exfil_exit_code ] && has="exit code"
    if why=$($py tests/cli/hidden_view.py problems/mha-fused-qkv/problem.json "$tmp/$x.student" \
        "$tmp/$x.full" ${has:+--full-has "$has"}); then
        ok "$x: nothing numeric about hidden tests in the student's view"
    else
        bad "$x: $why"
    fi
done
cp "$tmp/exfil_exit_code.student" "$tmp/out"
json_check "exfil_exit_code: runtime_error on a hidden test, the rest not run, score 0" \
    "[t['verdict'] for t in r['tests'] if t['kind']=='hidden'][0]=='runtime_error' and all(v=='not_run' for v in [t['verdict'] for t in r['tests'] if t['kind']=='hidden'][1:]) and r['score']==0"

# After a fatal test the rest do not run, unless the problem opts in
mkdir -p "$tmp/runall"
cp -r problems/mha-fused-qkv "$tmp/runall/"
$py -c "import json,sys; p=json.load(open(sys.argv[1])); p['run_all_tests']=True; json.dump(p, open(sys.argv[1],'w'))" \
    "$tmp/runall/mha-fused-qkv/problem.json"
expect_exit "run_all_tests" 1 $J --problems "$tmp/runall" --problem mha-fused-qkv --json \
    tests/attacks/exfil_exit_code.c
json_check "run_all_tests: every hidden test runs" \
    "all(t['verdict']=='runtime_error' for t in r['tests'] if t['kind']=='hidden') and r['verdict']=='wrong_answer'"
expect_exit "a time limit stops the submission" 1 $J --problem mha-fused-qkv --json \
    tests/submissions/mha-fused-qkv/time_limit/debug_spin.c
json_check "after a time_limit the other tests are not run and count as failed" \
    "r['tests'][0]['verdict']=='time_limit' and all(t['verdict']=='not_run' and set(t)<={'name','kind','verdict','weight','dims'} for t in r['tests'][1:]) and r['score']==0 and r['verdict']=='time_limit'"

# A file name that looks like an option is only a label (it once reached gcc as "-v.c")
mkdir -p "$tmp/dash"
cp tests/submissions/mha-cross/accepted/plain_float.c "$tmp/dash/-v.c"
expect_exit "a correct file named -v.c is accepted" 0 $J --problem mha-cross --json --samples-only "$tmp/dash/-v.c"
json_check "-v.c: accepted, compiled" "r['verdict']=='accepted'"
cp tests/submissions/mha-cross/accepted/plain_float.c "$tmp/dash/--help.c"
expect_exit "a correct file named --help.c is accepted" 0 $J --problem mha-cross --json --samples-only -- "$tmp/dash/--help.c"

# compile errors name the student's file, never the sandbox's paths
printf 'void mha_cross(double *x) { }\n' >"$tmp/mine.c"
expect_exit "compile error exits 1" 1 $J --problem mha-cross --json "$tmp/mine.c"
json_check "compile error: conflicting types, in mine.c, no sandbox paths" \
    "r['verdict']=='compile_error' and 'conflicting types' in r['compile_log'] and 'mine.c:1' in r['compile_log'] and '/work/' not in r['compile_log'] and '/tmp/' not in r['compile_log']"
printf '#include <stdio.h>\nint main(void){return 0;}\n' >"$tmp/main.c"
expect_exit "main only" 1 $J --problem mha-cross --json "$tmp/main.c"
json_check "defining main is a clear compile error" \
    "r['verdict']=='compile_error' and 'remove yours' in r['compile_log']"
expect_exit "human output" 1 $J --problem mha-cross "$tmp/mine.c"
grep -q "verdict: compile_error" "$tmp/out" && ok "human output names the verdict" || bad "human output names the verdict"

# every starter compiles and fails
for p in problems/*/; do
    s=$(basename "$p")
    expect_exit "starter of $s is not accepted" 1 $J --problem "$s" --json --samples-only "$p/starter.c"
    json_check "starter of $s compiles" "r['verdict'] not in ('compile_error','internal_error','accepted')"
done

# export: sample test, custom case, NULL mask, hidden tests
sample=$($py -c "import json; print([t['name'] for t in json.load(open('problems/mha-cross/problem.json'))['tests'] if t['kind']=='sample' and 'mask' not in t.get('null',[])][0])")
expect_exit "export a sample test" 0 "$bin" export --data "$data" --problem mha-cross --test "$sample" --dir "$tmp/ex1"
if $py - "$tmp/ex1" <<'PY'
import json, sys, numpy as np
d = sys.argv[1]
c = json.load(open(d + "/case.json"))
q = np.load(d + "/inputs/query.npy"); o = np.load(d + "/expected/out.npy")
dims = c["dims"]
assert c["problem"] == "mha-cross" and isinstance(c["seed"], int)
assert q.dtype == np.dtype("<f4") and q.shape == (dims["B"], dims["Tq"], dims["d_model"])
assert o.shape == (dims["B"], dims["Tq"], dims["d_model"]) and np.isfinite(o).all()
m = np.load(d + "/inputs/mask.npy"); assert m.dtype == np.uint8 and m.shape == (dims["Tq"], dims["Tk"])
assert (m == 0).any(axis=1).all()   # no query row fully blocked
PY
then ok "export writes the documented .npy files"; else bad "export writes the documented .npy files"; fi
expect_exit "export again with another secret" 0 "$bin" export --data "$tmp/data2" --problem mha-cross --test "$sample" --dir "$tmp/ex2"
cmp -s "$tmp/ex1/inputs/query.npy" "$tmp/ex2/inputs/query.npy" && cmp -s "$tmp/ex1/expected/out.npy" "$tmp/ex2/expected/out.npy" &&
    ok "a sample test is the same bytes everywhere" || bad "a sample test is the same bytes everywhere"
expect_exit "export a custom case" 0 "$bin" export --data "$data" --problem mha-cross --dims B=2,Tq=3,Tk=5,d_model=8,num_heads=2 --seed 7 --dir "$tmp/ex3"
expect_exit "export custom case again" 0 "$bin" export --data "$tmp/data2" --problem mha-cross --dims B=2,Tq=3,Tk=5,d_model=8,num_heads=2 --seed 7 --dir "$tmp/ex4"
cmp -s "$tmp/ex3/expected/out.npy" "$tmp/ex4/expected/out.npy" && ok "custom cases are reproducible" || bad "custom cases are reproducible"
expect_exit "export rejects dims breaking a constraint" 2 "$bin" export --data "$data" --problem mha-cross --dims B=2,Tq=3,Tk=5,d_model=7,num_heads=2 --seed 7 --dir "$tmp/ex5"
expect_exit "export rejects missing dims" 2 "$bin" export --data "$data" --problem mha-cross --dims B=2 --seed 7 --dir "$tmp/ex5"
hidden=$($py -c "import json; print([t['name'] for t in json.load(open('problems/mha-cross/problem.json'))['tests'] if t['kind']=='hidden'][0])")
nullcase=$($py -c "import json; print([t['name'] for t in json.load(open('problems/mha-cross/problem.json'))['tests'] if 'mask' in t.get('null',[])][0])")
expect_exit "export of a hidden test needs --hidden" 1 "$bin" export --data "$data" --problem mha-cross --test "$hidden" --dir "$tmp/ex6"
expect_exit "export of a hidden test with --hidden" 0 "$bin" export --data "$data" --problem mha-cross --test "$hidden" --hidden --dir "$tmp/ex6"
expect_exit "the same hidden test under another secret" 0 "$bin" export --data "$tmp/data2" --problem mha-cross --test "$hidden" --hidden --dir "$tmp/ex7"
cmp -s "$tmp/ex6/inputs/query.npy" "$tmp/ex7/inputs/query.npy" && bad "hidden inputs depend on the secret" || ok "hidden inputs depend on the secret"
expect_exit "export of a NULL-mask test" 0 "$bin" export --data "$data" --problem mha-cross --test "$nullcase" --hidden --dir "$tmp/ex8"
[ ! -e "$tmp/ex8/inputs/mask.npy" ] && [ -e "$tmp/ex8/inputs/query.npy" ] && ok "a NULL input has no file" || bad "a NULL input has no file"
# an in-place (inout) tensor is exported twice: before the call in inputs/,
# the reference's result in expected/; they differ exactly in slot pos
kvs=$($py -c "import json; print([t['name'] for t in json.load(open('problems/kv-cache-decode/problem.json'))['tests'] if t['kind']=='sample' and t['dims']['pos'] + 1 < t['dims']['max_T']][0])")
expect_exit "export a kv-cache-decode sample" 0 "$bin" export --data "$data" --problem kv-cache-decode --test "$kvs" --dir "$tmp/ex9"
if $py - "$tmp/ex9" <<'PY'
import json, sys, numpy as np
d = sys.argv[1]
c = json.load(open(d + "/case.json"))
pos, dims = c["dims"]["pos"], c["dims"]
assert "scalars" not in c
for name in ("k_cache", "v_cache"):
    before = np.load(d + f"/inputs/{name}.npy"); after = np.load(d + f"/expected/{name}.npy")
    assert before.shape == after.shape == (dims["B"], dims["H"], dims["max_T"], dims["d_head"])
    changed = (before != after).any(axis=(0, 1, 3))
    assert changed.tolist() == [j == pos for j in range(dims["max_T"])], changed
    new = np.load(d + "/inputs/" + name[0] + "_new.npy")
    assert (after[:, :, pos] == new).all()
import os
assert os.path.exists(d + "/expected/out.npy") and not os.path.exists(d + "/inputs/out.npy")
assert not os.path.exists(d + "/expected/q.npy")
PY
then ok "export: an inout cache in inputs/ and expected/, differing exactly in slot pos"; else bad "export: an inout cache in inputs/ and expected/, differing exactly in slot pos"; fi
# a float parameter: a sample test's own eps in case.json, and the one the
# reference computed with; a custom case gets the declared value
lns=$($py -c "import json; print([t['name'] for t in json.load(open('problems/layernorm/problem.json'))['tests'] if t['kind']=='sample' and t.get('scalars', {}).get('eps', 1e-5) != 1e-5][0])")
expect_exit "export a layernorm sample with its own eps" 0 "$bin" export --data "$data" --problem layernorm --test "$lns" --dir "$tmp/ex10"
expect_exit "export a layernorm custom case" 0 "$bin" export --data "$data" --problem layernorm --dims rows=3,dim=4 --seed 5 --dir "$tmp/ex11"
if $py - "$tmp/ex10" "$tmp/ex11" "$lns" <<'PY'
import json, sys, numpy as np
spec = json.load(open("problems/layernorm/problem.json"))
want = [t for t in spec["tests"] if t["name"] == sys.argv[3]][0]["scalars"]["eps"]
for d, eps in ((sys.argv[1], want), (sys.argv[2], 1e-5)):
    c = json.load(open(d + "/case.json"))
    assert c["scalars"] == {"eps": c["scalars"]["eps"]} and abs(c["scalars"]["eps"] - eps) <= 1e-9 * eps, c
    x, g, b = (np.load(f"{d}/inputs/{n}.npy").astype(np.float64) for n in ("x", "gamma", "beta"))
    mu = x.mean(axis=1, keepdims=True); var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    y = (x - mu) / np.sqrt(var + float(np.float32(eps))) * g + b
    got = np.load(d + "/expected/y.npy")
    assert np.abs(got - y).max() <= 1e-6 * np.abs(y).max(), np.abs(got - y).max()
    # and not with the default eps, when the test sets another one
    if eps != 1e-5:
        y5 = (x - mu) / np.sqrt(var + 1e-5) * g + b
        assert np.abs(got - y5).max() > 1e-4 * np.abs(y).max()
PY
then ok "export: a test's eps in case.json \"scalars\", and the expected output computed with it"; else bad "export: a test's eps in case.json \"scalars\", and the expected output computed with it"; fi

# export --samples-archive: the zip GET /api/problems/{slug}/samples serves
expect_exit "export --samples-archive" 0 "$bin" export --data "$data" --problem mha-cross --samples-archive "$tmp/kit.zip"
expect_exit "export --samples-archive under another secret" 0 "$bin" export --data "$tmp/data2" --problem mha-cross --samples-archive "$tmp/kit2.zip"
cmp -s "$tmp/kit.zip" "$tmp/kit2.zip" && ok "the sample archive is the same bytes everywhere" || bad "the sample archive is the same bytes everywhere"
if $py - "$tmp/kit.zip" "$tmp/ex1" "$sample" <<'PY'
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = set(z.namelist())
top = "mha-cross-samples/"
tests = json.load(open("problems/mha-cross/problem.json"))["tests"]
cases = {n.split("/")[2] for n in names if n.startswith(top + "cases/")}
assert cases == {t["name"] for t in tests if t["kind"] == "sample"}, cases
for f in ("README.txt", "Makefile", "main.c", "caseio.c", "caseio.h", "attnjudge.h"):
    assert top + f in names, f
for sub, f in (("inputs", "query.npy"), ("expected", "out.npy")):
    assert z.read(top + "cases/%s/%s/%s" % (sys.argv[3], sub, f)) == open("%s/%s/%s" % (sys.argv[2], sub, f), "rb").read()
PY
then ok "the sample archive: every sample test, export's bytes, the driver"; else bad "the sample archive: every sample test, export's bytes, the driver"; fi
expect_exit "--samples-archive with --test is a usage error" 2 "$bin" export --data "$data" --problem mha-cross --test "$sample" --samples-archive "$tmp/kit3.zip"

# problem check
for p in problems/*/; do
    expect_exit "problem check $(basename "$p")" 0 "$bin" problem check --data "$data" "$p"
done
mkdir -p "$tmp/broken/broken"
printf '{"slug": "broken", "title": "x", "difficulty": "easy", "function": "f", "params": [{"name": "x", "type": "f64", "role": "in", "shape": ["N"]}]}' >"$tmp/broken/broken/problem.json"
expect_exit "problem check of a broken package" 1 "$bin" problem check --data "$data" "$tmp/broken/broken"
grep -q 'params\[0\]' "$tmp/out" && ok "problem check names the offending field" || bad "problem check names the offending field ($(cat "$tmp/out"))"
# a package's own example solutions (docs/authoring.md): accepted/ must be
# accepted with a 10x margin, wrong/ must not be; the margin of each test
ex=$tmp/examples/softmax-stable
mkdir -p "$ex/accepted" "$ex/wrong"
cp -r problems/softmax-stable/* "$ex/"
cp reference/softmax-stable.c "$ex/reference.c"
cp tests/submissions/softmax-stable/accepted/plain_float.c "$ex/accepted/"
cp tests/submissions/softmax-stable/wrong_answer/max_init_zero.c "$ex/wrong/"
expect_exit "problem check runs the package's examples" 0 "$bin" problem check --data "$data" "$ex"
grep -q "^ok   accepted/plain_float.c: accepted, smallest margin [0-9]*x on test" "$tmp/out" &&
    grep -q "^ok   wrong/max_init_zero.c: wrong_answer on test '.*, as it should be" "$tmp/out" &&
    [ "$(grep -c "^ok   margin on test '" "$tmp/out")" -eq "$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tests"]))' "$ex/problem.json")" ] &&
    ok "problem check: examples' verdicts and a margin per test" || bad "problem check: examples' verdicts and a margin per test ($(cat "$tmp/out"))"
mv "$ex/wrong/max_init_zero.c" "$ex/accepted/"
mv "$ex/accepted/plain_float.c" "$ex/wrong/"
expect_exit "problem check fails on examples in the wrong directory" 1 "$bin" problem check --data "$data" "$ex"
grep -q "^FAIL accepted/max_init_zero.c: wrong_answer on test '.*but it is a correct solution" "$tmp/out" &&
    grep -q "^FAIL wrong/plain_float.c: accepted, but it is a known wrong solution" "$tmp/out" &&
    ok "problem check: a rejected correct example and an accepted wrong one fail" || bad "problem check: a rejected correct example and an accepted wrong one fail ($(cat "$tmp/out"))"
rm -r "$ex/accepted" "$ex/wrong"
# a test that is too tight for a correct solution: margin below 10x
mkdir -p "$ex/accepted" && cp tests/submissions/softmax-stable/accepted/plain_float.c "$ex/accepted/"
$py -c "import json,sys; p=json.load(open(sys.argv[1])); p['tolerance']={'atol': 1e-7, 'rtol': 1e-7, 'atol_relative_to_max': True}; json.dump(p, open(sys.argv[1], 'w'))" "$ex/problem.json"
expect_exit "problem check fails when the margin is under 10x" 1 "$bin" problem check --data "$data" "$ex"
grep -q "^FAIL accepted/plain_float.c: accepted, but with a tolerance margin of only" "$tmp/out" ||
    grep -q "^FAIL accepted/plain_float.c: wrong_answer" "$tmp/out" &&
    ok "problem check names the too-tight tolerance" || bad "problem check names the too-tight tolerance ($(cat "$tmp/out"))"
rm -r "$ex/accepted"
cp problems/softmax-stable/problem.json "$ex/"
# a reference that crashes on one hidden test: the package's fault, named
$py - "$ex/reference.c" <<'PY'
import sys
s = open(sys.argv[1]).read()
body = s.index("{", s.index("softmax_rows("))
open(sys.argv[1], "w").write(s[:body + 1] + "\n    if (cols == 2000) *(volatile int *)0 = 1;\n" + s[body + 1:])
PY
expect_exit "problem check of a reference that crashes" 1 "$bin" problem check --data "$data" "$ex"
grep -q "^FAIL reference.c: .*killed by signal 11 (SIGSEGV) on test 'long-rows-large'" "$tmp/out" && ! grep -q "internal error" "$tmp/out" &&
    ok "a crashing reference is reported naming the test, not as an internal error" || bad "a crashing reference is reported naming the test ($(cat "$tmp/out"))"
cp reference/softmax-stable.c "$ex/reference.c"
# large JSON numbers (jansson reads 1e20 as a real) are accepted by generators
$py -c "import json,sys; p=json.load(open(sys.argv[1])); p['tests'].append({'name': 'huge-logits', 'kind': 'hidden', 'dims': {'rows': 2, 'cols': 8}, 'generators': {'x': {'dist': 'uniform', 'lo': -1e20, 'hi': 1e20}}}); open(sys.argv[1], 'w').write(json.dumps(p).replace('1e+20', '1e20'))" "$ex/problem.json"
grep -q '"lo": -1e20' "$ex/problem.json" && expect_exit "a generator with 1e20 loads and checks" 0 "$bin" problem check --data "$data" "$ex"
# hints and the walkthrough (docs/problem-format.md): rendered and their
# math checked with KaTeX like the statement's; a gap in the numbering is
# refused at load
rm -rf "$ex/hints" "$ex/walkthrough.md"
cp -r tests/server/hints-fixture/hints tests/server/hints-fixture/walkthrough.md "$ex/"
expect_exit "problem check of a package with hints and a walkthrough" 0 "$bin" problem check --data "$data" "$ex"
grep -q "^ok   3 hints and the walkthrough render" "$tmp/out" &&
    grep -q "^ok   hints/2.md math: KaTeX renders every formula" "$tmp/out" &&
    grep -q "^ok   walkthrough.md math: KaTeX renders every formula" "$tmp/out" &&
    ok "problem check renders the hints and the walkthrough and checks their math" ||
    bad "problem check renders the hints and the walkthrough and checks their math ($(cat "$tmp/out"))"
printf 'A broken formula: $\\frac{1$\n' >"$ex/hints/2.md"
expect_exit "problem check of a hint KaTeX cannot render" 1 "$bin" problem check --data "$data" "$ex"
grep -q "^FAIL hints/2.md:1: KaTeX cannot render this math" "$tmp/out" &&
    ok "problem check names the hint and line of the bad math" || bad "problem check names the hint and line of the bad math ($(cat "$tmp/out"))"
rm "$ex/hints/1.md"
expect_exit "problem check of hints with a gap" 1 "$bin" problem check --data "$data" "$ex"
grep -q "hints/1.md: missing (hints are numbered 1, 2, ... without gaps)" "$tmp/out" "$tmp/err" &&
    ok "problem check names the missing hint" || bad "problem check names the missing hint ($(cat "$tmp/out" "$tmp/err"))"
rm -rf "$ex/hints" "$ex/walkthrough.md"
# problem new: a scaffold that passes problem check as it is
mkdir -p "$tmp/new"
expect_exit "problem new writes a package" 0 "$bin" problem new my-first-problem --dir "$tmp/new"
for f in problem.json statement.md starter.c reference.c accepted/float_softmax.c wrong/no_max_subtraction.c \
    hints/1.md hints/2.md walkthrough.md; do
    [ -s "$tmp/new/my-first-problem/$f" ] || bad "problem new wrote $f"
done
grep -q '"function": "my_first_problem"' "$tmp/new/my-first-problem/problem.json" && ok "problem new: the function is named after the slug" || bad "problem new: the function is named after the slug"
expect_exit "the scaffold passes problem check" 0 "$bin" problem check --data "$data" "$tmp/new/my-first-problem"
grep -q "^ok   accepted/float_softmax.c: accepted" "$tmp/out" && grep -q "^ok   wrong/no_max_subtraction.c: wrong_answer" "$tmp/out" &&
    ok "the scaffold's examples are checked" || bad "the scaffold's examples are checked ($(cat "$tmp/out"))"
expect_exit "problem new never overwrites" 1 "$bin" problem new my-first-problem --dir "$tmp/new"
grep -q "already exists" "$tmp/err" && ok "problem new says the package exists" || bad "problem new says the package exists"
expect_exit "problem new refuses a bad slug" 1 "$bin" problem new Bad_Slug --dir "$tmp/new"
[ ! -e "$tmp/new/Bad_Slug" ] && ok "no package for a bad slug" || bad "no package for a bad slug"
expect_exit "problem new without a slug" 2 "$bin" problem new
expect_exit "problem new 2fast: a slug that is no C identifier" 0 "$bin" problem new 2fast --dir "$tmp/new"
grep -q '"function": "solve_2fast"' "$tmp/new/2fast/problem.json" && ok "problem new: a C name for a slug starting with a digit" || bad "problem new: a C name for a slug starting with a digit"
expect_exit "problems lists packages" 0 "$bin" problems
[ "$(wc -l <"$tmp/out")" -eq "$(ls -d problems/*/ | wc -l)" ] && ok "problems lists every package" || bad "problems lists every package"
# the built-in course in path order (judge/path.h): prerequisites first,
# then easy < medium < hard, then title
path="softmax-stable layernorm sdpa-single-head split-merge-heads mha-fused-qkv mha-cross cross-attention-padding gpt2-attention kv-cache-decode mha-block-postln gpt2-block-preln attention-memory-bounded gqa-rope mha-backward"
got=$(awk '{print $1}' "$tmp/out" | tr '\n' ' ' | sed 's/ $//')
[ "$got" = "$path" ] && ok "problems lists the 14 built-in problems in path order" || bad "problems in path order: got '$got'"
if $py - "$tmp/out" <<'PY'
import json, sys
order = [l.split()[0] for l in open(sys.argv[1])]
rank = {"easy": 0, "medium": 1, "hard": 2}
for i, s in enumerate(order):
    p = json.load(open(f"problems/{s}/problem.json"))
    assert p["slug"] == s
    for q in p.get("prerequisites", []):
        assert order.index(q) < i, f"{q} after {s}"
PY
then ok "every prerequisite is listed before its dependents"; else bad "every prerequisite is listed before its dependents"; fi

# attnjudge worker (docs/operations.md, "Judge hosts"): what it refuses
expect_exit "worker on a data directory without a database" 1 "$bin" worker --data "$tmp/no-server"
grep -q "no database at $tmp/no-server/attnjudge.db.*start attnjudge serve" "$tmp/err" &&
    ok "... says to start the server first" || bad "worker without a database ($(cat "$tmp/err"))"
expect_exit "worker --workers 0 judges nothing" 2 "$bin" worker --data "$data" --workers 0
grep -q "workers = 0 would judge nothing" "$tmp/err" && ok "... and says so" || bad "worker --workers 0 ($(cat "$tmp/err"))"
expect_exit "worker with an unknown option" 2 "$bin" worker --frobnicate
expect_exit "worker with a bad lease" 2 "$bin" worker --set lease_s=0

# the same judge as an ordinary user (unprivileged user namespaces)
# --bench (docs/performance.md): the benchmark phase after an accepted
# verdict, on a copy of softmax-stable with two sizes of its own, each
# ~20 ms of work: well above the floor and the noise of a busy CI machine,
# which a tiny size could fall under and so come out unresolved (a package
# below does so on purpose)
mkdir -p "$tmp/bp"
cp -r problems/softmax-stable "$tmp/bp/"
$py - "$tmp/bp/softmax-stable/problem.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["benchmark"] = {"flops": "5*rows*cols", "bytes": "8*rows*cols",
                  "sizes": [{"name": "square", "dims": {"rows": 2048, "cols": 2048}},
                            {"name": "wide", "dims": {"rows": 128, "cols": 32768}}]}
json.dump(d, open(p, "w"))
PY
B="$J --problems $tmp/bp --problem softmax-stable"
expect_exit "judge without --bench: no benchmark" 0 $B --json tests/submissions/softmax-stable/accepted/plain_float.c
json_check "without --bench the report has no benchmark" "'benchmark' not in r"
expect_exit "judge --bench of an accepted file" 0 $B --json --bench --bench-budget 300 tests/submissions/softmax-stable/accepted/plain_float.c
json_check "--bench: every size measured, every figure there" "r['verdict']=='accepted' and [s['name'] for s in r['benchmark']['sizes']]==['square','wide'] and all(s['status']=='done' and s['calls']>=3 and s['median_ms']>0 and s['min_ms']<=s['median_ms'] and s['cv']>=0 and s['reference_calls']>=3 and (s['reference_ms']>0 and s['speedup']>0 or s['reference_ms'] is None and s['speedup'] is None) and s['overhead_ms']>=0 and s['gflops']>0 and 0<s['peak_fraction']<1 and s['gbs']>0 and s['intensity']==0.625 and s['flops']==5*s['dims']['rows']*s['dims']['cols'] for s in r['benchmark']['sizes'])"
json_check "--bench: the geometric mean and the machine" "abs(r['benchmark']['geomean_ms']-(r['benchmark']['sizes'][0]['median_ms']*r['benchmark']['sizes'][1]['median_ms'])**0.5)<1e-6*r['benchmark']['geomean_ms'] and r['benchmark']['machine']['fma_gflops']>0 and r['benchmark']['machine']['bandwidth_gbs']>0"
[ -s "$data/machine.json" ] && ok "--bench: the machine's ceilings cached in the data directory" || bad "--bench: machine.json not cached"
expect_exit "--bench in words" 0 $B --bench --bench-budget 300 tests/submissions/softmax-stable/accepted/plain_float.c
grep -q "geometric mean of the medians" "$tmp/out" && grep -q "FMA peak" "$tmp/out" &&
    ok "--bench in words: the table, the peak and the geometric mean" || bad "--bench in words ($(head -c 300 "$tmp/out"))"
# A size whose time cannot be told from the empty function's is
# unresolved, not a figure above the machine's peak: a package that claims
# a million times the FLOPs puts the floor (the time the FMA peak needs)
# far above every call's time, so every call lands on it.
mkdir -p "$tmp/floor"
cp -r "$tmp/bp/softmax-stable" "$tmp/floor/"
$py -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['benchmark']['flops']='5000000*rows*cols'; json.dump(d, open(p,'w'))" "$tmp/floor/softmax-stable/problem.json"
expect_exit "--bench where every call lands on the floor: still accepted" 0 $J --problems "$tmp/floor" --problem softmax-stable --json --bench --bench-budget 300 tests/submissions/softmax-stable/accepted/plain_float.c
json_check "... each size unresolved after at least 3 calls, no figure, not ranked" "r['verdict']=='accepted' and r['benchmark']['verdict']=='accepted' and all(s['status']=='unresolved' and s['calls']>=3 and s['median_ms'] is None and s['gflops'] is None and s['peak_fraction'] is None for s in r['benchmark']['sizes']) and r['benchmark']['geomean_ms'] is None"
expect_exit "... in words" 0 $J --problems "$tmp/floor" --problem softmax-stable --bench --bench-budget 300 tests/submissions/softmax-stable/accepted/plain_float.c
grep -q "unresolved: the function's time could not be told apart" "$tmp/out" &&
    ok "... says what unresolved means" || bad "unresolved in words ($(grep -A3 benchmark "$tmp/out"))"
# The budget is the submission's, and the reference is timed once per
# size: with a reference slowed to about 3 s per call at the benchmark
# size, the first benchmark times it three times (9 s) and still gives
# the submission its five calls within a budget of 11 s. Its outputs for
# calls 0 and 4 take a run each (6 s), which leaves 5 s for everything
# else, enough on a loaded machine under the sanitizers (with 1 s runs
# and a 4.5 s budget that margin was 2.5 s, and once fell short there).
# Charged to the budget, the timed runs stop it at three calls (checked
# with the charge put back). The next benchmark takes the reference's
# time from the cache, the same figure, without running it to time it.
mkdir -p "$tmp/slowbp" "$tmp/slowref"
cp -r "$tmp/bp/softmax-stable" "$tmp/slowbp/"
$py -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['benchmark']['sizes']=[{'name': 'square', 'dims': {'rows': 1024, 'cols': 1024}}]; json.dump(d, open(p,'w'))" "$tmp/slowbp/softmax-stable/problem.json"
sed 's|^    free(e);$|    free(e);\
    if ((long)rows * cols >= 1L << 20) { /* the benchmark size: about 3 s more */\
        volatile double burn = 1;\
        for (long i = 0; i < 720000000L; i++)\
            burn = burn * 0.999999 + 1e-9;\
    }|' reference/softmax-stable.c >"$tmp/slowref/softmax-stable.c"
S="$J --problems $tmp/slowbp --reference $tmp/slowref --problem softmax-stable"
expect_exit "--bench with a slow reference" 0 $S --json --bench --bench-budget 11000 tests/submissions/softmax-stable/accepted/plain_float.c
json_check "... timed three times, over 1.5 s each, and the submission still gets its five calls" "r['benchmark']['sizes'][0]['reference_calls']==3 and r['benchmark']['sizes'][0]['reference_kept'] is False and r['benchmark']['sizes'][0]['reference_ms']>1500 and r['benchmark']['sizes'][0]['calls']>=5"
cp "$tmp/out" "$tmp/slow-first.json"
expect_exit "--bench with the slow reference again" 0 $S --json --bench --bench-budget 2500 tests/submissions/softmax-stable/accepted/plain_float.c
json_check "... its time is the one kept from the first benchmark, and the submission gets its five calls" "r['benchmark']['sizes'][0]['reference_ms']==json.load(open('$tmp/slow-first.json'))['benchmark']['sizes'][0]['reference_ms'] and r['benchmark']['sizes'][0]['reference_calls']==3 and r['benchmark']['sizes'][0]['reference_kept'] is True and r['benchmark']['sizes'][0]['calls']>=5"
# right on every test, wrong at scale: the benchmark's check overturns the verdict
sed '/#include "common.h"/{
r tests/server/bench-cheats/common.h
d
}' tests/server/bench-cheats/wrong_at_scale.c >"$tmp/wrong_at_scale.c"
expect_exit "a file wrong only at scale is accepted by the tests" 0 $B --json "$tmp/wrong_at_scale.c"
expect_exit "... and wrong_answer with --bench (exit 1)" 1 $B --json --bench --bench-budget 300 "$tmp/wrong_at_scale.c"
json_check "--bench: the failing size and its message" "r['verdict']=='wrong_answer' and r['benchmark']['verdict']=='wrong_answer' and r['benchmark']['failed_size']=='square' and 'outside tolerance' in r['benchmark']['message'] and r['benchmark']['sizes'][1]['status']=='not_run' and r['benchmark']['geomean_ms'] is None"
mkdir -p "$tmp/nobench" && cp -r problems/layernorm "$tmp/nobench/"
$py -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); del d['benchmark']; json.dump(d, open(p,'w'))" "$tmp/nobench/layernorm/problem.json"
expect_exit "--bench of a problem with no sizes" 0 $J --problems "$tmp/nobench" --problem layernorm --json --bench tests/submissions/layernorm/accepted/plain_float.c
json_check "... an empty benchmark" "r['benchmark']['sizes']==[] and r['benchmark']['verdict']=='accepted'"
expect_exit "--bench of a wrong file: no benchmark" 1 $B --json --bench tests/submissions/softmax-stable/wrong_answer/$(ls tests/submissions/softmax-stable/wrong_answer | head -1)
json_check "... the tests' verdict, no benchmark" "r['verdict']=='wrong_answer' and 'benchmark' not in r"
# problem check runs the reference once at every benchmark size, under the
# limits a student gets there
expect_exit "problem check: the reference at each benchmark size" 0 "$bin" problem check --data "$data" "$tmp/bp/softmax-stable"
grep -q "ok   benchmark size square: the reference takes [0-9]* ms of its 10000 ms" "$tmp/out" &&
    ok "problem check: the reference's time at each size, against its limit" || bad "problem check: benchmark sizes ($(grep bench "$tmp/out"))"
$py -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['benchmark']['sizes'][1]['dims']={'rows': 4096, 'cols': 4096}; d['benchmark']['sizes'][1]['limits']={'cpu_ms': 1}; json.dump(d, open(p,'w'))" "$tmp/bp/softmax-stable/problem.json"
expect_exit "problem check: a benchmark size the reference cannot meet fails" 1 "$bin" problem check --data "$data" "$tmp/bp/softmax-stable"
grep -q "FAIL benchmark size wide: the reference ran over its CPU time limit of 1 ms" "$tmp/out" &&
    ok "problem check: says which size and why" || bad "problem check: which size ($(grep bench "$tmp/out"))"
expect_exit "--bench-budget must be milliseconds" 2 $B --bench-budget soon tests/submissions/softmax-stable/accepted/plain_float.c

. tests/cli/authoring.sh

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    # nobody runs copies under $tmp: the checkout itself may sit in a
    # directory only root may enter (root's home is 0700)
    nb="$tmp/nobody"
    mkdir -p "$nb/src" && cp "$bin" "$nb/attnjudge" && cp -R problems reference "$nb/" &&
        cp tests/submissions/mha-cross/accepted/plain_float.c \
            tests/submissions/mha-cross/security_violation/reads_etc_passwd.c "$nb/src/" &&
        chown -R 65534:65534 "$nb" && chmod 755 "$tmp"
    nbj="$nb/attnjudge judge --problems $nb/problems --reference $nb/reference"
    expect_exit "judging works as an unprivileged user" 0 setpriv --reuid=65534 --regid=65534 \
        --clear-groups $nbj --data "$nb/data" --problem mha-cross --json "$nb/src/plain_float.c"
    expect_exit "and catches violations there too" 1 setpriv --reuid=65534 --regid=65534 \
        --clear-groups $nbj --data "$nb/data" --problem mha-cross --json \
        --samples-only "$nb/src/reads_etc_passwd.c"
    json_check "violation named as an unprivileged user" "r['verdict']=='security_violation' and r['tests'][0]['message']=='tried to open a file (openat): solutions may not read files; everything the function needs arrives in its arguments'"
    # no sandbox, no judging: with no process to spare, the self-test fails
    # and the judge refuses rather than judging unprotected
    expect_exit "no sandbox: the judge refuses" 1 setpriv --reuid=65534 --regid=65534 \
        --clear-groups prlimit --nproc=1 $nbj --data "$nb/data" --problem mha-cross \
        --json "$nb/src/plain_float.c"
    grep -q "refusing to judge" "$tmp/err" && [ ! -s "$tmp/out" ] &&
        ok "no sandbox: a clear message and no verdict" || bad "no sandbox: a clear message and no verdict ($(cat "$tmp/err"))"
fi

. tests/cli/crashline.sh
. tests/cli/search.sh

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
