# shellcheck shell=bash
# tests/server/sections/accounts.sh — accounts: sign-up, sign-in, sessions.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
req 201 "" "register alice" -X POST "$URL/api/users" -H 'Content-Type: application/json' \
    -d '{"username":"alice","password":"alice-password"}'
req 409 username_taken "register alice twice" -X POST "$URL/api/users" \
    -H 'Content-Type: application/json' -d '{"username":"ALICE","password":"alice-password"}'
ALICE=$(signin alice alice-password)
[ ${#ALICE} -eq 64 ]
check "alice signs in (64-hex token)" $?
# this server keeps the default password_hash_limits (the Python
# scenarios' servers use minimum): argon2id at the interactive limits
case "$(db "SELECT pwhash FROM users WHERE username = 'alice'")" in
'$argon2id$v=19$m=65536,t=2,p=1$'*) ok "a password is stored as argon2id at the interactive limits" ;;
*) bad "a password is stored as argon2id at the interactive limits" ;;
esac
BOB=$(signin bob b0b-password)
PROF=$(signin prof "$INSTR_PW")
# user add's generated password is one-time: nothing but the change first
req 403 password_change_required "a one-time password must be changed before anything else" \
    "$URL/api/submissions" -H "Authorization: Bearer $PROF"
req 200 "" "GET /api/me says so" "$URL/api/me" -H "Authorization: Bearer $PROF"
[ "$(jget "$TMP/body" 'd["must_change_password"]')" = True ]
check "GET /api/me: must_change_password true" $?
PROF_PW=prof-password-2
req 200 "" "the instructor chooses a password" -X POST "$URL/api/users/me/password" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' \
    -d "{\"old_password\":\"$INSTR_PW\",\"new_password\":\"$PROF_PW\"}"
req 200 "" "... and the same session goes on" "$URL/api/submissions" -H "Authorization: Bearer $PROF"
req 200 "" "metrics answer an instructor through a proxy" "$URL/metrics" \
    -H "X-Forwarded-For: 203.0.113.9" -H "Authorization: Bearer $PROF"
[ ${#BOB} -eq 64 ] && [ ${#PROF} -eq 64 ]
check "bob and the instructor sign in" $?
req 200 "" "GET /api/me" "$URL/api/me" -H "Authorization: Bearer $ALICE"
[ "$(jget "$TMP/body" 'd["role"]')" = student ]
check "alice is a student" $?
c -D "$TMP/hdr" -o "$TMP/body" -X POST "$URL/api/sessions" -H 'Content-Type: application/json' \
    -d '{"username":"alice","password":"alice-password","cookie":true}'
COOKIE=$(sed -n 's/^Set-Cookie: \(attnjudge_session=[0-9a-f]*\);.*/\1/Ip' "$TMP/hdr" | tr -d '\r')
grep -qi '^Set-Cookie: attnjudge_session=.*HttpOnly.*SameSite=Strict' "$TMP/hdr" &&
    [ -z "$(jget "$TMP/body" 'd.get("token")')" ] && [ -n "$COOKIE" ]
check "cookie session: HttpOnly, SameSite=Strict, token not in the body" $?
req 200 "" "GET /api/me with the cookie" "$URL/api/me" -H "Cookie: $COOKIE"
req 403 cross_origin "cookie write from another origin" -X POST "$URL/api/submissions" \
    -H "Cookie: $COOKIE" -H 'Origin: http://evil.example' -H 'Content-Type: application/json' \
    -d '{"problem":"'$SLUG'","source":"int x;"}'
