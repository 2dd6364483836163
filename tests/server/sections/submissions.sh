# shellcheck shell=bash
# tests/server/sections/submissions.sh — submissions and verdicts.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
declare -A IDS
for v in accepted wrong_answer compile_error; do
    f=$(first_case $v)
    if [ -z "$f" ]; then
        bad "corpus has no $SLUG/$v case"
        continue
    fi
    body_json "$SLUG" "$f" >"$TMP/sub.json"
    ms=$(c -X POST "$URL/api/submissions" -H "Authorization: Bearer $ALICE" -w '%{time_total}' \
        -H 'Content-Type: application/json' --data-binary @"$TMP/sub.json" -o "$TMP/subr.json")
    id=$(jget "$TMP/subr.json" 'd["id"]')
    if [ -n "$id" ] && [ "$(jget "$TMP/subr.json" 'd["status"]')" = queued ]; then
        ok "submit $v: 202 queued in ${ms} s"
    else
        bad "submit $v: $(head -c 200 "$TMP/subr.json")"
    fi
    IDS[$v]=$id
done
for v in accepted wrong_answer compile_error; do
    [ -n "${IDS[$v]:-}" ] || continue
    got=$(wait_verdict "$ALICE" "${IDS[$v]}")
    [ "$got" = "$v" ]
    check "submission ${IDS[$v]} judged $v (got $got)" $?
done
if [ -n "${IDS[compile_error]:-}" ]; then
    c "$URL/api/submissions/${IDS[compile_error]}" -H "Authorization: Bearer $ALICE" -o "$TMP/ce.json"
    [ -n "$(jget "$TMP/ce.json" 'd["compile_log"]')" ] &&
        ! grep -q '/tmp\|/work\|/home' <<<"$(jget "$TMP/ce.json" 'd["compile_log"]')"
    check "compile_error carries the compiler log without host paths" $?
fi
if [ -n "${IDS[accepted]:-}" ]; then
    c "$URL/api/submissions/${IDS[accepted]}" -H "Authorization: Bearer $ALICE" -o "$TMP/acc.json"
    [ "$(jget "$TMP/acc.json" 'd["score"]')" = 100.0 ] &&
        [ "$(jget "$TMP/acc.json" 'len(d["tests"]) > 0 and all(("time_ms" if t["kind"] == "sample" else "time_class") in t for t in d["tests"])')" = True ] &&
        [ "$(jget "$TMP/acc.json" 'd["problem_version"]')" = 1 ]
    check "accepted: score 100, per-test details, problem_version" $?
    req 200 "" "leaderboard" "$URL/api/leaderboard/$SLUG"
    [ "$(jget "$TMP/body" 'd["entries"][0]["user"]')" = alice ]
    check "alice leads the leaderboard" $?
fi
req 200 "" "GET /api/submissions?mine=1" "$URL/api/submissions?mine=1" -H "Authorization: Bearer $ALICE"
[ "$(jget "$TMP/body" 'len(d["submissions"])')" = 3 ]
check "alice sees her 3 submissions" $?
