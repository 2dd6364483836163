# shellcheck shell=bash
# tests/server/sections/authorization.sh — authorization: who may see and do what.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
AID=${IDS[accepted]:-1}
req 404 not_found "bob cannot read alice's submission" "$URL/api/submissions/$AID" \
    -H "Authorization: Bearer $BOB"
req 200 "" "the instructor reads alice's submission" "$URL/api/submissions/$AID" \
    -H "Authorization: Bearer $PROF"
req 200 "" "bob's list is his own" "$URL/api/submissions" -H "Authorization: Bearer $BOB"
[ "$(jget "$TMP/body" 'len(d["submissions"])')" = 0 ]
check "bob's list is empty" $?
req 403 forbidden "bob cannot list alice's submissions" "$URL/api/submissions?user=alice" \
    -H "Authorization: Bearer $BOB"
req 200 "" "instructor filters by user and verdict" \
    "$URL/api/submissions?user=alice&verdict=accepted&problem=$SLUG" -H "Authorization: Bearer $PROF"
[ "$(jget "$TMP/body" 'len(d["submissions"])')" = 1 ]
check "instructor's filter finds 1 submission" $?
req 403 forbidden "a student cannot add a problem" -X POST "$URL/api/problems" \
    -H "Authorization: Bearer $BOB" -H 'Content-Type: application/json' -d '{}'
req 403 forbidden "a student cannot rejudge" -X POST "$URL/api/problems/$SLUG/rejudge" \
    -H "Authorization: Bearer $BOB"
req 403 forbidden "a student cannot read grades" "$URL/api/grades.csv" -H "Authorization: Bearer $BOB"
req 403 forbidden "a student cannot register an instructor" -X POST "$URL/api/users" \
    -H 'Content-Type: application/json' -d '{"username":"mallory","password":"mallory-pw","role":"instructor"}'
req 200 "" "grades.csv" "$URL/api/grades.csv" -H "Authorization: Bearer $PROF"
head -1 "$TMP/body" | grep -q '^student,problem,best_score,time_of_best' && grep -q "^alice,$SLUG,100.00," "$TMP/body"
check "grades.csv has alice's best score" $?
