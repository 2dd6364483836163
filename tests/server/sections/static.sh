# shellcheck shell=bash
# tests/server/sections/static.sh — static files.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
c -D "$TMP/hdr" -o "$TMP/body" "$URL/"
grep -qi '^Content-Type: text/html' "$TMP/hdr" && grep -q attnjudge "$TMP/body" &&
    grep -qi "^Content-Security-Policy: default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; frame-ancestors 'none'" "$TMP/hdr" &&
    grep -qi '^X-Content-Type-Options: nosniff' "$TMP/hdr"
check "GET / serves index.html with CSP and nosniff" $?
c -D "$TMP/hdr" -o /dev/null "$URL/app.js"
grep -qi '^Content-Type: text/javascript' "$TMP/hdr"
check "app.js is text/javascript" $?
c -D "$TMP/hdr" -o /dev/null "$URL/css/site.css"
grep -qi '^Content-Type: text/css' "$TMP/hdr"
check "css/site.css is text/css" $?
c -D "$TMP/hdr" -o /dev/null "$URL/api/nothing"
grep -qi '^Content-Security-Policy:' "$TMP/hdr" && grep -qi '^X-Content-Type-Options: nosniff' "$TMP/hdr"
check "error responses carry CSP and nosniff too" $?
