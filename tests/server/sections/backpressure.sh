# shellcheck shell=bash
# tests/server/sections/backpressure.sh — backpressure: 429 per user, 503 when the queue is full.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
cat >"$TMP/tight.conf" <<'EOF'
workers = 1
benchmark = off
user_queue_max = 100
queue_max = 1
submit_burst = 4
submit_rate_per_min = 1
selftest_interval_s = 1
registration = code
class_code = course-2026
EOF
start_server c --config "$TMP/tight.conf" || { bad "restart with tight limits"; echo "$PASS passed, $FAIL failed"; exit 1; }
# registration = code: the vocabulary says so (the sign-up form then asks
# for the code), and a sign-up needs the code.
req 200 "" "GET /api/vocabulary with registration = code" "$URL/api/vocabulary"
[ "$(jget "$TMP/body" 'd["registration"]')" = code ]
check "vocabulary: registration = code" $?
req 403 invalid_class_code "sign-up without the class code" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"carol","password":"carol-password"}'
req 201 "" "sign-up with the class code" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"carol","password":"carol-password","class_code":"course-2026"}'
ALICE=$(signin alice alice-password)
codes=""
for _ in 1 2 3 4 5 6; do
    codes="$codes $(c -o "$TMP/bp.json" -D "$TMP/bp.hdr" -w '%{http_code}' -X POST "$URL/api/submissions" \
        -H "Authorization: Bearer $ALICE" -H "$J" --data-binary @"$TMP/burst.json")"
    case "$codes" in *503) grep -qi '^Retry-After: ' "$TMP/bp.hdr" && [ "$(jget "$TMP/bp.json" 'd["error"]["code"]')" = queue_full ] && echo 503ok >"$TMP/bp503" ;; esac
    case "$codes" in *429) grep -qi '^Retry-After: ' "$TMP/bp.hdr" && [ "$(jget "$TMP/bp.json" 'd["error"]["code"]')" = rate_limited ] && echo 429ok >"$TMP/bp429" ;; esac
done
[ -f "$TMP/bp503" ]
check "a full queue answers 503 queue_full with Retry-After (codes:$codes)" $?
[ -f "$TMP/bp429" ]
check "the per-user rate limit answers 429 with Retry-After" $?
# The periodic self-test checks the sandbox alone: it builds no judge
# context, so it neither reads nor creates the secret. With the secret made
# unreadable (a directory in its place) /healthz still says the sandbox is ok.
mv "$TMP/data/secret.key" "$TMP/secret.key.saved" && mkdir "$TMP/data/secret.key"
sleep 3 # three self-tests at selftest_interval_s = 1
req 200 "" "healthz after self-tests with the secret unreadable" "$URL/healthz"
[ "$(jget "$TMP/body" 'd["sandbox"]')" = ok ]
check "the self-test runs the sandbox check alone (no judge context, no secret)" $?
rmdir "$TMP/data/secret.key" && mv "$TMP/secret.key.saved" "$TMP/data/secret.key"
grep -q '"GET /healthz" 200' "$TMP/access.log"
check "the access log has one line per request" $?
stop_server TERM
check "SIGTERM exits 0" $?
