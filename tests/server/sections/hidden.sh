# shellcheck shell=bash
# tests/server/sections/hidden.sh — hidden tests: the author sees verdicts only, instructors everything.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
req 201 "" "register eve" -X POST "$URL/api/users" -H 'Content-Type: application/json' \
    -d '{"username":"eve","password":"eve-password"}'
EVE=$(signin eve eve-password)
for x in exfil_nan_probe exfil_input_scale exfil_exit_code; do
    xid=$(submit "$EVE" "$ROOT/tests/attacks/$x.c")
    got=$(wait_verdict "$EVE" "$xid" 120)
    [ "$got" = wrong_answer ]
    check "$x judged wrong_answer (got $got)" $?
    c "$URL/api/submissions/$xid" -H "Authorization: Bearer $EVE" -o "$TMP/$x.student"
    c "$URL/api/submissions/$xid" -H "Authorization: Bearer $PROF" -o "$TMP/$x.full"
    has=""
    [ "$x" = exfil_exit_code ] && has="exit code"
    if why=$(/usr/bin/python3 "$ROOT/tests/cli/hidden_view.py" "$ROOT/problems/$SLUG/problem.json" \
        "$TMP/$x.student" "$TMP/$x.full" ${has:+--full-has "$has"}); then
        ok "$x: the author's view has nothing numeric about hidden tests; the instructor's has all"
    else
        bad "$x: $why"
    fi
done
[ "$(jget "$TMP/exfil_exit_code.student" '"not_run" in [t["verdict"] for t in d["tests"]] and d["verdict"] == "wrong_answer"')" = True ]
check "after a hidden runtime_error the remaining tests are not_run" $?
req 200 "" "eve lists her submissions" "$URL/api/submissions" -H "Authorization: Bearer $EVE"
[ "$(jget "$TMP/body" 'len(d["submissions"]) == 3 and all(s["time_ms"] is None for s in d["submissions"])')" = True ]
check "a student's list has no time of a submission that was not accepted" $?
req 200 "" "the instructor lists eve's submissions" "$URL/api/submissions?user=eve" \
    -H "Authorization: Bearer $PROF"
[ "$(jget "$TMP/body" 'len(d["submissions"]) == 3 and all(isinstance(s["time_ms"], float) for s in d["submissions"])')" = True ]
check "the instructor's list has every time" $?
if [ -n "${IDS[accepted]:-}" ]; then
    c "$URL/api/submissions/${IDS[accepted]}" -H "Authorization: Bearer $ALICE" -o "$TMP/acc2.json"
    [ "$(jget "$TMP/acc2.json" 'isinstance(d["time_ms"], float) and all(set(t) <= {"name", "kind", "verdict", "weight", "dims", "time_class"} for t in d["tests"] if t["kind"] == "hidden")')" = True ]
    check "an accepted submission keeps its total time (as on the leaderboard), hidden tests stay reduced" $?
fi
