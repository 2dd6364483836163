# Sourced by tests/cli/run.sh (its $bin, $data, $tmp, $py, ok, bad and
# expect_exit): `attnjudge problem check` as an author meets it, on
# packages scaffolded by `problem new` (docs/authoring.md): every schema
# error in one run, margin lines that agree with the examples' verdicts,
# no margins when the accepted example does not compile, and a warning for
# a statement that declares the function with another prototype.

au=$tmp/authoring
mkdir -p "$au"
for s in four margin nocompile proto; do
    "$bin" problem new "$s" --dir "$au" >/dev/null || bad "problem new $s"
done

# four planted schema errors: all four in one run, each naming its field
$py - "$au/four/problem.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["difficulty"] = "trivial"
p["tolerance"]["atol"] = -1
p["limits"]["cpu_ms"] = "fast"
p["tests"][1]["kind"] = "secret"
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY
expect_exit "problem check: four schema errors fail the package" 1 "$bin" problem check --data "$data" "$au/four"
[ "$(grep -c '^FAIL schema: ' "$tmp/out")" -eq 4 ] &&
    grep -q "^FAIL schema: difficulty: 'trivial' is not easy, medium or hard$" "$tmp/out" &&
    grep -q "^FAIL schema: tolerance.atol: must be a number >= 0$" "$tmp/out" &&
    grep -q "^FAIL schema: limits.cpu_ms: " "$tmp/out" &&
    grep -q "^FAIL schema: tests\[1\].kind: 'secret' is not 'sample' or 'hidden'$" "$tmp/out" &&
    grep -q "^package has errors (4 in the schema)$" "$tmp/out" &&
    ok "problem check: all four schema errors in one run, each named" ||
    bad "problem check: all four schema errors in one run ($(cat "$tmp/out"))"

# a tolerance that leaves the accepted example a margin just under 10x on
# its tightest test: the example's line and that test's margin line agree
# (no "ok margin" for it, and never "10x" for a margin under 10)
$bin judge --data "$data" --problems "$au" --json --full --problem margin "$au/margin/accepted/float_softmax.c" >"$tmp/margin.json"
$py - "$tmp/margin.json" "$au/margin/problem.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
use = max(t["tensors"][0]["tolerance_use"] for t in r["tests"])
p = json.load(open(sys.argv[2]))
# every tolerance_use scales as 1 / the tolerance: the smallest margin becomes 9.97
p["tolerance"]["atol"] *= 9.97 * use
p["tolerance"]["rtol"] *= 9.97 * use
json.dump(p, open(sys.argv[2], "w"))
PY
expect_exit "problem check: a margin just under 10x fails" 1 "$bin" problem check --data "$data" --search-budget 0 "$au/margin"
tight=$(sed -n "s/^FAIL accepted\/float_softmax.c: accepted, but with a tolerance margin of only 9.9x on test '\([a-z0-9_-]*\)'.*/\1/p" "$tmp/out")
[ -n "$tight" ] &&
    grep -q "^FAIL margin on test '$tight': 9.9x, under the 10x needed$" "$tmp/out" &&
    ! grep -q "^ok   margin on test '$tight'" "$tmp/out" && ! grep -q " 10\.0x" "$tmp/out" &&
    ok "problem check: one verdict for a margin just under 10x, on both lines" ||
    bad "problem check: one verdict for a margin just under 10x ($(grep -i margin "$tmp/out"))"
! grep -q "^WARN" "$tmp/out" && ok "problem check: the scaffold's statement gets no prototype warning" ||
    bad "problem check: the scaffold's statement gets no prototype warning ($(grep WARN "$tmp/out"))"

# an accepted example that does not compile measures no margin
printf 'this is not C\n' >"$au/nocompile/accepted/float_softmax.c"
expect_exit "problem check: an accepted example that does not compile fails" 1 "$bin" problem check --data "$data" --search-budget 300 "$au/nocompile"
grep -q "^FAIL accepted/float_softmax.c: compile_error" "$tmp/out" &&
    ! grep -q "^ok   margin" "$tmp/out" &&
    grep -q "^FAIL margin not measured: the accepted example did not compile$" "$tmp/out" &&
    ok "problem check: no margin lines when the accepted example does not compile" ||
    bad "problem check: no margin lines when the accepted example does not compile ($(grep -i margin "$tmp/out"))"

# a statement that documents another prototype: a warning naming both,
# the package still valid
$py - "$au/proto/statement.md" <<'PY'
import sys
s = open(sys.argv[1]).read()
old = "void proto(const float *x, float *y, int rows, int cols);"
assert old in s
open(sys.argv[1], "w").write(s.replace(old, "void proto(const float *x, float *y,\n           int n);"))
PY
expect_exit "problem check: a statement with another prototype is a warning, not a failure" 0 "$bin" problem check --data "$data" --search-budget 300 "$au/proto"
grep -q "^WARN statement.md:[0-9]*: declares void proto(const float \*x, float \*y, int n) (3 parameters), but problem.json's function is void proto(const float \*x, float \*y, int rows, int cols) (4)" "$tmp/out" &&
    [ "$(grep -c '^WARN' "$tmp/out")" -eq 1 ] &&
    ok "problem check: the prototype warning names both prototypes" ||
    bad "problem check: the prototype warning names both prototypes ($(head -5 "$tmp/out"))"
# the scaffold declares an input domain: its examples meet the search
grep -q "^ok   domain: declared; the counterexample search ran after the tests of every mistake and example, 300 ms each" "$tmp/out" &&
    grep -q "^ok   accepted/.*: accepted, .*; the search: [0-9]* inputs, worst error/tolerance" "$tmp/out" &&
    ok "problem check: the scaffold's domain, searched" ||
    bad "problem check: the scaffold's domain, searched ($(grep -e domain -e accepted/ "$tmp/out"))"
