# shellcheck shell=bash
# tests/server/sections/malformed.sh — malformed requests: each gets the right 4xx and a JSON error.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
A="Authorization: Bearer $ALICE"
J='Content-Type: application/json'
req 400 bad_json "truncated JSON" -X POST "$URL/api/users" -H "$J" -d '{"username":'
req 400 bad_json "JSON array instead of object" -X POST "$URL/api/users" -H "$J" -d '[1,2]'
req 400 bad_json "empty body" -X POST "$URL/api/users" -H "$J"
req 400 invalid_request "username is a number" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":42,"password":"long-enough"}'
req 400 invalid_request "missing password" -X POST "$URL/api/users" -H "$J" -d '{"username":"carol"}'
req 400 invalid_request "unknown field" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"carol","password":"long-enough","admin":true}'
req 400 bad_json "duplicate keys" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"carol","username":"dave","password":"long-enough"}'
req 415 unsupported_media_type "no Content-Type" -X POST "$URL/api/users" \
    -H 'Content-Type:' -d '{"username":"carol","password":"long-enough"}'
req 415 unsupported_media_type "text/plain body" -X POST "$URL/api/users" \
    -H 'Content-Type: text/plain' -d '{"username":"carol","password":"long-enough"}'
req 400 invalid_username "path traversal as a username" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"../../etc/passwd","password":"long-enough"}'
req 400 weak_password "short password" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"carol","password":"short"}'
printf '{"username":"car\xff\xfeol","password":"long-enough"}' >"$TMP/bad-utf8.json"
req 400 bad_json "non-UTF-8 body" -X POST "$URL/api/users" -H "$J" --data-binary @"$TMP/bad-utf8.json"
req 400 bad_json "escaped NUL in a string" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"car\u0000ol","password":"long-enough"}'
printf '{"username":"carol\0","password":"long-enough"}' >"$TMP/nul.json"
req 400 bad_json "raw NUL byte in the body" -X POST "$URL/api/users" -H "$J" --data-binary @"$TMP/nul.json"
req 400 bad_json "lone UTF-16 surrogate" -X POST "$URL/api/users" -H "$J" \
    -d '{"username":"\ud800","password":"long-enough"}'
req 401 bad_credentials "wrong password" -X POST "$URL/api/sessions" -H "$J" \
    -d '{"username":"alice","password":"not-her-password"}'
req 401 bad_credentials "unknown user" -X POST "$URL/api/sessions" -H "$J" \
    -d '{"username":"nobody","password":"whatever-pw"}'
req 400 invalid_request "cookie is not a boolean" -X POST "$URL/api/sessions" -H "$J" \
    -d '{"username":"alice","password":"alice-password","cookie":"yes"}'
req 401 unauthorized "submit without a token" -X POST "$URL/api/submissions" -H "$J" \
    -d '{"problem":"'$SLUG'","source":"int x;"}'
req 401 unauthorized "submit with a forged token" -X POST "$URL/api/submissions" -H "$J" \
    -H "Authorization: Bearer $(printf '0%.0s' $(seq 64))" -d '{"problem":"'$SLUG'","source":"int x;"}'
req 401 unauthorized "malformed Authorization header" "$URL/api/me" -H 'Authorization: Basic YTpi'
req 400 invalid_request "source is an array" -X POST "$URL/api/submissions" -H "$A" -H "$J" \
    -d '{"problem":"'$SLUG'","source":["int x;"]}'
req 400 invalid_request "empty source" -X POST "$URL/api/submissions" -H "$A" -H "$J" \
    -d '{"problem":"'$SLUG'","source":""}'
req 400 invalid_slug "path traversal as a problem slug" -X POST "$URL/api/submissions" -H "$A" \
    -H "$J" -d '{"problem":"../../etc/passwd","source":"int x;"}'
req 404 not_found "unknown problem" -X POST "$URL/api/submissions" -H "$A" -H "$J" \
    -d '{"problem":"no-such-problem","source":"int x;"}'
head -c 3000000 /dev/zero | tr '\0' 'a' >"$TMP/huge"
req 413 payload_too_large "3 MB body with Content-Length" -X POST "$URL/api/submissions" -H "$A" \
    -H "$J" --data-binary @"$TMP/huge"
req 413 payload_too_large "3 MB chunked body" -X POST "$URL/api/submissions" -H "$A" -H "$J" \
    -H 'Transfer-Encoding: chunked' --data-binary @"$TMP/huge"
/usr/bin/python3 -c 'import json; print(json.dumps({"problem": "'$SLUG'", "source": "/*" + "a" * 66000 + "*/"}))' >"$TMP/big-src.json"
req 413 payload_too_large "source over 64 KiB" -X POST "$URL/api/submissions" -H "$A" -H "$J" \
    --data-binary @"$TMP/big-src.json"
req 413 payload_too_large "a body on a GET route" "$URL/api/problems" -X GET -H "$J" -d '{"x":1}'
req 400 invalid_id "non-numeric submission id" "$URL/api/submissions/abc" -H "$A"
req 400 invalid_id "negative submission id" "$URL/api/submissions/-1" -H "$A"
req 404 not_found "unknown submission id" "$URL/api/submissions/99999999" -H "$A"
req 400 invalid_parameter "unknown verdict filter" "$URL/api/submissions?verdict=bogus" -H "$A"
req 400 invalid_parameter "limit=0" "$URL/api/submissions?limit=0" -H "$A"
req 400 invalid_parameter "non-UTF-8 query value" "$URL/api/submissions?user=%ff%fe" -H "$A"
req 404 not_found "unknown API route" "$URL/api/nope"
req 404 not_found "trailing slash" "$URL/api/problems/"
req 405 method_not_allowed "PATCH /api/problems" -X PATCH "$URL/api/problems"
req 405 method_not_allowed "DELETE /api/leaderboard/{slug}" -X DELETE "$URL/api/leaderboard/$SLUG"
req 400 invalid_slug "bad slug in the API path" "$URL/api/problems/Bad_Slug!"
req 400 invalid_slug "dot-dot as a slug" --path-as-is "$URL/api/problems/.."
req 400 invalid_path "encoded traversal in the API path (an encoded slash)" \
    "$URL/api/problems/..%2f..%2fetc%2fpasswd"
req 404 not_found "unknown leaderboard" "$URL/api/leaderboard/no-such-problem"
req 400 invalid_path "static path traversal" --path-as-is "$URL/../../etc/passwd"
req 400 invalid_path "encoded static path traversal" "$URL/%2e%2e/%2e%2e/etc/passwd"
req 400 invalid_path "hidden static file" "$URL/.hidden"
req 400 invalid_path "backslash in a static path" "$URL/..%5c..%5cetc%5cpasswd"
req 404 not_found "symlink out of the web directory" "$URL/passwd-link"
req 404 not_found "missing static file" "$URL/missing.js"
req 405 method_not_allowed "POST to a static path" -X POST "$URL/index.html" -H "$J" -d '{}'
req 200 "" "the server is still up after the malformed requests" "$URL/healthz"
