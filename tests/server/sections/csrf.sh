# shellcheck shell=bash
# tests/server/sections/csrf.sh — CSRF: a cookie write needs this site's Origin or a JSON body.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
# (rejudge of a problem without submissions: nothing is queued)
cookie_of() { # cookie_of USER PASSWORD -> "attnjudge_session=..."
    c -D "$TMP/ck.hdr" -o /dev/null -X POST "$URL/api/sessions" -H 'Content-Type: application/json' \
        -d "{\"username\":\"$1\",\"password\":\"$2\",\"cookie\":true}"
    sed -n 's/^Set-Cookie: \(attnjudge_session=[0-9a-f]*\);.*/\1/Ip' "$TMP/ck.hdr" | tr -d '\r'
}
PCOOKIE=$(cookie_of prof "$PROF_PW")
HOSTPORT=${URL#http://}
RJ="$URL/api/problems/mha-cross/rejudge"
req 403 cross_origin "body-less cookie POST without Origin (rejudge) is refused" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE"
[ "$(jget "$TMP/body" '"Origin" in d["error"]["message"]')" = True ]
check "the refusal says what is missing" $?
req 403 cross_origin "cookie POST of a form (urlencoded, no Origin) is refused" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H 'Content-Type: application/x-www-form-urlencoded' -d 'a=1'
req 403 cross_origin "cookie POST as text/plain (no Origin) is refused" -X POST "$URL/api/submissions" \
    -H "Cookie: $COOKIE" -H 'Content-Type: text/plain' -d '{"problem":"'$SLUG'","source":"int x;"}'
req 403 cross_origin "cookie POST with Origin: null is refused" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H 'Origin: null'
req 403 cross_origin "cookie POST from another port of the same host is refused" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H "Origin: http://127.0.0.1:1"
req 403 cross_origin "a foreign Origin is refused even with a JSON body" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H 'Origin: https://evil.example' -H 'Content-Type: application/json' -d '{}'
req 202 "" "cookie POST with this site's Origin is accepted" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H "Origin: http://$HOSTPORT"
req 202 "" "cookie POST with a JSON body and no Origin is accepted" -X POST "$RJ" \
    -H "Cookie: $PCOOKIE" -H 'Content-Type: application/json' -d '{}'
req 202 "" "a bearer-token POST needs no Origin" -X POST "$RJ" -H "Authorization: Bearer $PROF"
req 403 cross_origin "cookie DELETE /api/sessions without Origin or JSON is refused" -X DELETE \
    "$URL/api/sessions" -H "Cookie: $PCOOKIE"
req 200 "" "... and the session is still valid" "$URL/api/me" -H "Cookie: $PCOOKIE"
req 204 "" "cookie DELETE /api/sessions with this site's Origin signs out" -X DELETE \
    "$URL/api/sessions" -H "Cookie: $PCOOKIE" -H "Origin: http://$HOSTPORT"
req 401 unauthorized "... and the session is gone" "$URL/api/me" -H "Cookie: $PCOOKIE"
grep -qi '^Set-Cookie: attnjudge_device=[0-9a-f]\{32\}\.[0-9a-f]\{64\}; Path=/api/sessions;.*HttpOnly; SameSite=Strict' "$TMP/ck.hdr" &&
    ! grep -qi '^Set-Cookie:.*Secure' "$TMP/ck.hdr"
check "sign-in sets the device cookie (HttpOnly, only for /api/sessions); no Secure without https" $?
c -o /dev/null -H 'X-Forwarded-For: 203.0.113.99' "$URL/api/xff-no-proxy"
wait_log '127\.0\.0\.1 "GET /api/xff-no-proxy" 404'
check "without trusted_proxy, X-Forwarded-For is ignored (the access log shows the peer)" $?
