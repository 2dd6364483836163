# Sourced by tests/cli/run.sh (uses its $J, $py, $tmp, ok, bad, expect_exit,
# json_check): the counterexample search (judge/search.c). A copy of
# softmax-stable with the tests, input domain and extra known mistake of
# tests/cli/search/package.json judges
# tests/cli/search/max_skips_last.c, which passes every test: the search
# finds the row that shows it, the same one every time, shows it in full
# and names the mistake; --no-search and a budget of 0 accept it.
sp=$tmp/search-problems
mkdir -p "$sp"
cp -r problems/softmax-stable "$sp/"
cp tests/cli/search/max_skips_last.c "$sp/softmax-stable/mistakes/max-skips-last.c"
$py - "$sp/softmax-stable/problem.json" tests/cli/search/package.json <<'PY'
import json, sys
path, fixture = sys.argv[1], json.load(open(sys.argv[2]))
p = json.load(open(path))
p["tests"], p["domain"] = fixture["tests"], fixture["domain"]
p.pop("search", None)
p["mistakes"].append(fixture["mistake"])
json.dump(p, open(path, "w"), indent=1)
PY
S="$J --problem softmax-stable --problems $sp"
skip=tests/cli/search/max_skips_last.c

expect_exit "search: --no-search accepts what every test passes" 0 $S --no-search --json $skip
json_check "search: --no-search: accepted, no search in the report" "r['verdict']=='accepted' and 'search' not in r"
expect_exit "search: --search-budget 0 is no search" 0 $S --search-budget 0 --json $skip
json_check "search: budget 0: no search in the report" "r['verdict']=='accepted' and 'search' not in r"
expect_exit "search: a bad --search-budget is a usage error" 2 $S --search-budget -5 $skip

expect_exit "search: the search finds the mistake, exit 1" 1 $S --json $skip
cp "$tmp/out" "$tmp/search1.json"
json_check "search: wrong_answer by a counterexample the student sees in full" \
    "r['verdict']=='wrong_answer' and all(t['verdict']=='accepted' for t in r['tests']) and r['search']['found'] and r['search']['inputs']>=1 and r['score']<100"
json_check "search: the counterexample's inputs, expected and actual outputs" \
    "(lambda c: c['verdict']=='wrong_answer' and c['dims']['rows']>=1 and len(c['inputs']['x']['values'])==c['dims']['rows']*c['dims']['cols'] and len(c['expected']['y']['values'])==len(c['actual']['y']['values'])==len(c['inputs']['x']['values']) and 'NaN' in c['actual']['y']['values'])(r['search']['counterexample'])"
json_check "search: where it differs, with coordinates" \
    "(lambda t: t['name']=='y' and t['mismatches']>=1 and t['first_mismatches'][0]['at'].startswith('y[') and 'message' in t)(r['search']['counterexample']['tensors'][0])"
json_check "search: shrunk to a few elements" \
    "(lambda c: c['dims']['rows']*c['dims']['cols']<=9 and c['dims']['cols']>=2 and c['generators'].startswith('x: '))(r['search']['counterexample'])"
json_check "search: the diagnosis names the known mistake, evidence search" \
    "r['diagnosis']['mistake']=='max-skips-last' and r['diagnosis']['evidence']=='search'"
expect_exit "search: judged again" 1 $S --json $skip
if $py -c "import json,sys; a,b=(json.load(open(f))['search']['counterexample'] for f in sys.argv[1:]); [c.pop('time_ms') for c in (a,b)]; sys.exit(0 if a==b else 1)" "$tmp/search1.json" "$tmp/out"; then
    ok "search: the same counterexample twice"
else
    bad "search: the same counterexample twice"
fi
expect_exit "search: the text report, exit 1" 1 $S $skip
grep -q "^search: .* found a counterexample" "$tmp/out" && grep -q "counterexample .* wrong_answer at rows=[1-9] cols=[2-9]$" "$tmp/out" &&
    grep -q "^    input x, shape \[[1-9], [2-9]\]:" "$tmp/out" && grep -q "matches a maximum that skips the last element" "$tmp/out" &&
    ok "search: the text report shows the counterexample" || bad "search: the text report shows the counterexample ($(tail -20 "$tmp/out"))"

expect_exit "search: a correct file stays accepted" 0 $S --json tests/submissions/softmax-stable/accepted/online_softmax.c
json_check "search: it ran, found nothing, worst ratio under 1" \
    "r['verdict']=='accepted' and r['search']['found'] is False and r['search']['inputs']>=1 and r['search']['worst_ratio']<1 and r['score']==100"
