# shellcheck shell=bash
# tests/server/sections/crash.sh — kill -9 during a burst; restart; every submission judged exactly once.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
f=$(first_case accepted)
PRE=$(db "SELECT coalesce(max(id), 0) FROM submissions")
body_json "$SLUG" "$f" >"$TMP/burst.json"
for i in $(seq 30); do
    # one file per request: nothing shared between the background writers
    (c -X POST "$URL/api/submissions" -H "$A" -H "$J" --data-binary @"$TMP/burst.json" \
        -o "$TMP/burst.$i" && jget "$TMP/burst.$i" 'd["id"]' >"$TMP/burst.$i.id") &
    [ "$i" -eq 20 ] && sleep 0.5
done
sleep 0.3
stop_server KILL
wait
cat "$TMP"/burst.*.id >"$TMP/burst.ids" 2>/dev/null
# only whole numeric ids count: a request cut off by the kill or refused
# under load (503) leaves no id, or no line at all
grep -E '^[0-9]+$' "$TMP/burst.ids" >"$TMP/burst.ok"
ACCEPTED202=$(grep -c . "$TMP/burst.ok")
[ "$ACCEPTED202" -gt 0 ]
check "burst: $ACCEPTED202 submissions answered 202 before kill -9" $?
start_server b --config "$TMP/test.conf" || { bad "restart after kill -9"; echo "$PASS passed, $FAIL failed"; exit 1; }
grep -q 'queued again' "$TMP/server.err"
check "restart re-queues the interrupted judgements" $?
deadline=$((SECONDS + 240))
while [ $SECONDS -lt $deadline ]; do
    [ "$(db "SELECT count(*) FROM submissions WHERE status != 'done'")" = 0 ] && break
    sleep 0.5
done
[ "$(db "SELECT count(*) FROM submissions WHERE status != 'done'")" = 0 ]
check "every submission is judged after the restart" $?
[ "$(db "SELECT count(*) FROM submissions WHERE judgements != 1 AND id > $PRE")" = 0 ]
check "every burst submission's verdict was recorded exactly once" $?
missing=0
while read -r id; do
    got=$(db "SELECT status || ':' || judgements FROM submissions WHERE id = $id")
    if [ "$got" != "done:1" ]; then
        missing=$((missing + 1))
        echo "  acknowledged #$id: '${got:-no such row}' (burst ids: $(tr '\n' ' ' <"$TMP/burst.ids"); newest row: $(db "SELECT max(id) FROM submissions"))"
    fi
done <"$TMP/burst.ok"
[ $missing -eq 0 ]
check "all $ACCEPTED202 acknowledged submissions exist and were judged once" $?
if [ -n "$PG_DB" ]; then
    [ "$(db "SELECT count(*) FROM submissions s WHERE s.id > $PRE AND ((s.report::json->>'verdict') IS DISTINCT FROM s.verdict OR (s.verdict != 'compile_error' AND coalesce(json_array_length(s.report::json->'tests'), 0) = 0))")" = 0 ]
else
    [ "$(db "SELECT count(*) FROM submissions s WHERE s.id > $PRE AND (json_extract(s.report, '$.verdict') IS NOT s.verdict OR (s.verdict != 'compile_error' AND coalesce(json_array_length(s.report, '$.tests'), 0) = 0))")" = 0 ]
fi
check "every report is recorded whole: its verdict is the column's, its tests are there" $?
if [ -n "$PG_DB" ]; then
    [ "$(db "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'test_results'")" = 0 ]
else
    [ "$(db "SELECT count(*) FROM sqlite_master WHERE name = 'test_results'")" = 0 ]
fi
check "no test_results table: the report JSON is the one truth for per-test results" $?
if [ -n "$PG_DB" ]; then
    # PostgreSQL enforces its foreign keys at every commit: what is left to
    # check is that no submission lost its user or problem
    [ "$(db "SELECT count(*) FROM submissions s WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = s.user_id) OR NOT EXISTS (SELECT 1 FROM problems p WHERE p.id = s.problem_id)")" = 0 ]
    check "every submission's user and problem exist" $?
else
    [ "$(db 'PRAGMA integrity_check')" = ok ] && [ "$(db 'PRAGMA foreign_key_check')" = "" ]
    check "PRAGMA integrity_check ok, no foreign key violations" $?
fi
