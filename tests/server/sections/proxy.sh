# shellcheck shell=bash
# tests/server/sections/proxy.sh — accounts under attack: a trusted proxy, per-account limits, public_url.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
# The server trusts 127.0.0.1 as its reverse proxy; requests "through the
# proxy" come from 127.0.0.1 with X-Forwarded-For, direct ones from other
# 127.x.y.z source addresses. Nothing refills during the test.
cat >"$TMP/attack.conf" <<'EOF'
workers = 1
benchmark = off
trusted_proxy = 127.0.0.1
public_url = https://judge.example
auth_burst = 3
auth_rate_per_min = 0.001
account_fail_burst = 3
account_fail_rate_per_min = 0.001
EOF
start_server d --config "$TMP/attack.conf" || { bad "restart with a trusted proxy"; echo "$PASS passed, $FAIL failed"; exit 1; }
try_signin() { # try_signin USER PASSWORD [curl args...] -> HTTP status; $TMP/si.hdr, $TMP/si.json
    local u=$1 p=$2
    shift 2
    c -o "$TMP/si.json" -D "$TMP/si.hdr" -w '%{http_code}' -X POST "$URL/api/sessions" -H "$J" \
        -d "{\"username\":\"$u\",\"password\":\"$p\",\"cookie\":true}" "$@"
}
fwd() { echo "X-Forwarded-For: $1"; }
limited() { # the last try_signin was a 429 rate_limited with Retry-After
    grep -qi '^Retry-After: [1-9]' "$TMP/si.hdr" && [ "$(jget "$TMP/si.json" 'd["error"]["code"]')" = rate_limited ]
}

codes=""
for i in 1 2 3 4; do codes="$codes $(try_signin "ghost$i" wrong-password -H "$(fwd 203.0.113.1)")"; done
[ "$codes" = " 401 401 401 429" ] && limited
check "behind the proxy, the per-address limit keys on X-Forwarded-For (codes:$codes)" $?
[ "$(try_signin ghost5 wrong-password -H "$(fwd 203.0.113.2)")" = 401 ]
check "another client behind the same proxy is not locked out" $?
[ "$(try_signin ghost6 wrong-password -H "X-Forwarded-For: 203.0.113.2, 203.0.113.1")" = 429 ]
check "entries a client writes into X-Forwarded-For itself are ignored" $?
codes=""
for i in 1 2 3 4; do
    codes="$codes $(try_signin "spoof$i" wrong-password --interface 127.0.0.2 -H "$(fwd "192.0.2.$i")")"
done
[ "$codes" = " 401 401 401 429" ]
check "from a peer that is not the proxy, a rotating X-Forwarded-For changes nothing (codes:$codes)" $?
c -o /dev/null -H "$(fwd 203.0.113.77)" "$URL/api/xff-trusted"
c -o /dev/null -H 'X-Forwarded-For: bogus' "$URL/api/xff-malformed"
c -o /dev/null --interface 127.0.0.3 -H "$(fwd 203.0.113.78)" "$URL/api/xff-untrusted"
wait_log '203\.0\.113\.77 "GET /api/xff-trusted" 404' &&
    wait_log '127\.0\.0\.1 "GET /api/xff-malformed" 404' &&
    wait_log '127\.0\.0\.3 "GET /api/xff-untrusted" 404'
check "the access log shows the forwarded client; the peer if malformed or untrusted" $?

# Per account: failures only, whatever the address; a known browser gets through.
[ "$(try_signin alice alice-password -H "$(fwd 198.51.100.10)")" = 200 ]
check "alice signs in through the proxy" $?
DEV=$(sed -n 's/^Set-Cookie: \(attnjudge_device=[0-9a-f.]*\);.*/\1/Ip' "$TMP/si.hdr" | tr -d '\r')
ASESS=$(sed -n 's/^Set-Cookie: \(attnjudge_session=[0-9a-f]*\);.*/\1/Ip' "$TMP/si.hdr" | tr -d '\r')
grep -qi '^Set-Cookie: attnjudge_session=.*; Secure' "$TMP/si.hdr" &&
    grep -qi '^Set-Cookie: attnjudge_device=.*; Secure' "$TMP/si.hdr" && [ -n "$DEV" ]
check "public_url https: both cookies are Secure by default" $?
codes=""
for i in 1 2 3 4 5; do codes="$codes $(try_signin bob b0b-password -H "$(fwd 198.51.100.11)")"; done
[ "$codes" = " 200 200 200 200 200" ]
check "successful sign-ins use up no limit (codes:$codes)" $?
codes=""
for i in 21 22 23 24; do codes="$codes $(try_signin alice wrong-password -H "$(fwd "198.51.100.$i")")"; done
[ "$codes" = " 401 401 401 429" ] && limited && grep -q 'failed sign-ins to this account' "$TMP/si.json"
check "rotating addresses: the 4th failure on one account is refused (codes:$codes)" $?
[ "$(try_signin ALICE wrong-password --interface 127.0.0.4)" = 429 ]
check "the account limit ignores case and applies to direct clients too" $?
[ "$(try_signin alice alice-password -H "$(fwd 198.51.100.25)")" = 429 ]
check "while the account is locked, a browser it never used must wait (the documented trade-off)" $?
[ "$(try_signin alice alice-password -H "$(fwd 198.51.100.26)" -H "Cookie: $DEV")" = 200 ]
check "alice's own browser (device cookie) still signs in during the attack" $?
[ "$(try_signin alice wrong-password -H "$(fwd 198.51.100.26)" -H "Cookie: $DEV")" = 401 ]
check "... and its typos count in its own bucket, not the locked one" $?
for i in 31 32 33; do try_signin bob wrong-password -H "$(fwd "198.51.100.$i")" >/dev/null; done
[ "$(try_signin bob b0b-password -H "$(fwd 198.51.100.34)" -H "Cookie: $DEV")" = 429 ]
check "alice's device cookie does not unlock bob's account" $?
codes=""
for i in 41 42 43 44; do codes="$codes $(try_signin no-such-user wrong-password -H "$(fwd "198.51.100.$i")")"; done
[ "$codes" = " 401 401 401 429" ]
check "an unknown username is limited the same way: no account enumeration (codes:$codes)" $?

# public_url: the Origin must be its origin, not merely match Host.
req 403 cross_origin "with public_url, an Origin matching only Host is refused" -X DELETE \
    "$URL/api/sessions" -H "Cookie: $ASESS" -H "Origin: $URL"
req 204 "" "with public_url, its origin is accepted" -X DELETE "$URL/api/sessions" \
    -H "Cookie: $ASESS" -H 'Origin: https://judge.example'
stop_server TERM
check "final SIGTERM exits 0" $?
