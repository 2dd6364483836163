# shellcheck shell=bash
# tests/server/sections/health.sh — health, metrics and the problem list.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
req 200 "" "GET /healthz" "$URL/healthz"
[ "$(jget "$TMP/body" 'd["status"]')" = ok ]
check "healthz says ok" $?
[ -n "$(jget "$TMP/body" 'd["workers"]')" ] &&
    [ "$(jget "$TMP/body" 'd["workers_running"]')" = "$(jget "$TMP/body" 'd["workers"]')" ]
check "healthz counts the workers that run" $?
c -o "$TMP/metrics" "$URL/metrics"
grep -q '^attnjudge_queue_depth ' "$TMP/metrics" && grep -q 'attnjudge_judge_seconds_bucket' "$TMP/metrics"
check "metrics in Prometheus text format" $?
req 403 forbidden "metrics refused to an anonymous client through a proxy" "$URL/metrics" \
    -H "X-Forwarded-For: 203.0.113.9"
req 200 "" "GET /api/vocabulary" "$URL/api/vocabulary"
"$BIN" vocabulary >"$TMP/vocab.cli"
[ "$(jget "$TMP/body" 'dict(d, registration=None, course_visibility=None, machine=None) == dict(__import__("json").load(open("'"$TMP/vocab.cli"'")), registration=None, course_visibility=None, machine=None)')" = True ]
check "the API's vocabulary is the judge's (attnjudge vocabulary)" $?
[ "$(jget "$TMP/body" 'd["registration"]')" = open ]
check "vocabulary: the server's registration mode (open by default)" $?
[ "$(jget "$TMP/body" 'd["verdicts"][:2] == ["accepted", "wrong_answer"] and d["test_kinds"] == ["sample", "hidden"] and "-O2" in d["compile"]["cflags"] and d["max_source_kib"] == 64')" = True ]
check "vocabulary: verdicts, test kinds, compile flags, source limit" $?
req 200 "" "GET /api/problems" "$URL/api/problems"
[ -n "$(jget "$TMP/body" '[p for p in d["problems"] if p["slug"] == "'$SLUG'"][0]["title"]')" ]
check "problem list has $SLUG" $?
"$BIN" problems --problems "$ROOT/problems" --reference "$ROOT/reference" | awk '{print $1}' >"$TMP/path.cli"
[ "$(jget "$TMP/body" '[p["slug"] for p in d["problems"]] == open("'"$TMP/path.cli"'").read().split()')" = True ]
check "GET /api/problems lists in the path order of attnjudge problems" $?
req 200 "" "GET /api/problems/$SLUG" "$URL/api/problems/$SLUG"
[ -n "$(jget "$TMP/body" 'd["statement_html"]')" ] && [ -n "$(jget "$TMP/body" 'd["starter_c"]')" ] &&
    [ "$(jget "$TMP/body" 'all("seed" not in t for t in d["tests"] if t["kind"] == "hidden")')" = True ]
check "problem detail: html, starter, no hidden seeds" $?
req 200 "" "GET /api/problems/layernorm" "$URL/api/problems/layernorm"
[ "$(jget "$TMP/body" '[p for p in d["params"] if p["name"] == "eps"] == [{"name": "eps", "type": "float", "value": 1e-5}] and "int dim, float eps)" in d["signature"] and [t.get("scalars") for t in d["tests"] if t["kind"] == "sample"] == [{"eps": 0.001}] + [{"eps": 1e-5}] * 3 and all("scalars" not in t for t in d["tests"] if t["kind"] == "hidden")')" = True ]
check "problem detail: a float parameter with its value, sample tests' scalars, none for hidden tests" $?
req 200 "" "GET /api/problems/kv-cache-decode" "$URL/api/problems/kv-cache-decode"
[ "$(jget "$TMP/body" '[p["role"] for p in d["params"] if p["name"].endswith("_cache")] == ["inout", "inout"] and "float *k_cache, float *v_cache" in d["signature"] and "scalars" not in str(d["tests"])')" = True ]
check "problem detail: in-place tensors have role inout and a non-const pointer" $?
