# shellcheck shell=bash
# tests/server/sections/upload.sh — problem upload by instructors.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
PKG="$TMP/pkg.json"
/usr/bin/python3 - "$ROOT" "$SLUG" "$SLUG-copy" >"$PKG" <<'EOF'
import json, sys
root, slug, new = sys.argv[1:4]
pj = json.load(open(f"{root}/problems/{slug}/problem.json"))
pj["slug"] = new
pj["title"] = pj["title"] + " (copy)"
# two of its known mistakes travel with it (each is judged on upload)
pj["mistakes"] = pj.get("mistakes", [])[:2]
print(json.dumps({
    "problem_json": json.dumps(pj),
    "statement_md": open(f"{root}/problems/{slug}/statement.md").read(),
    "starter_c": open(f"{root}/problems/{slug}/starter.c").read(),
    "reference_c": open(f"{root}/reference/{slug}.c").read(),
    "mistakes": {m["id"]: open(f"{root}/problems/{slug}/mistakes/{m['id']}.c").read()
                 for m in pj["mistakes"]},
    "state": "published",  # students submit to it below (an upload is a draft by default)
}))
EOF
req 201 "" "instructor uploads a problem" -X POST "$URL/api/problems" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$PKG"
req 409 problem_exists "POST of an existing slug" -X POST "$URL/api/problems" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$PKG"
req 200 "" "PUT replaces it (version 2)" -X PUT "$URL/api/problems/$SLUG-copy" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$PKG"
[ "$(jget "$TMP/body" 'd["version"]')" = 2 ]
check "the replacement is version 2" $?
[ "$(ls "$TMP/data/problems/v2/$SLUG-copy/mistakes" | wc -l)" = 2 ]
check "the uploaded version keeps its two known mistakes' files" $?
req 400 slug_mismatch "PUT under another slug" -X PUT "$URL/api/problems/$SLUG-other" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$PKG"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["reference_c"]="void nothing(void) {}\n"; print(json.dumps(d))' "$PKG" >"$TMP/badpkg.json"
req 422 invalid_problem "a package whose reference does not compile against it" -X PUT \
    "$URL/api/problems/$SLUG-copy" -H "Authorization: Bearer $PROF" \
    -H 'Content-Type: application/json' --data-binary @"$TMP/badpkg.json"
# a reference that crashes on one hidden test: the uploader's fault, a 422
# naming the test, never a 500
/usr/bin/python3 - "$PKG" "$TMP/crash-test" >"$TMP/crashpkg.json" <<'EOF'
import collections, json, sys
d = json.load(open(sys.argv[1]))
pj = json.loads(d["problem_json"])
seen = collections.Counter((k, v) for t in pj["tests"] for k, v in t["dims"].items())
test, (dim, value) = next((t["name"], (k, v)) for t in pj["tests"] if t["kind"] == "hidden"
                          for k, v in t["dims"].items() if seen[(k, v)] == 1)
src = d["reference_c"]
import re
body = re.search(r"\b" + pj["function"] + r"\([^;{]*\)\s*\{", src).end() - 1
d["reference_c"] = (src[:body + 1] + f"\n    if ({dim} == {value}) *(volatile int *)0 = 1;\n"
                    + src[body + 1:])
print(json.dumps(d))
print(test, file=open(sys.argv[2], "w"))
EOF
req 422 invalid_problem "a package whose reference crashes on a test" -X PUT \
    "$URL/api/problems/$SLUG-copy" -H "Authorization: Bearer $PROF" \
    -H 'Content-Type: application/json' --data-binary @"$TMP/crashpkg.json"
crash_test=$(cat "$TMP/crash-test")
[ "$(jget "$TMP/body" '"SIGSEGV" in d["error"]["message"] and "'"'$crash_test'"'" in d["error"]["message"]')" = True ]
rc=$?
check "the 422 names the test the reference crashed on ($crash_test: $(jget "$TMP/body" 'd["error"]["message"]'))" $rc
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["problem_json"]="{\"slug\": \"'$SLUG'-copy\", \"tests\": 7}"; print(json.dumps(d))' "$PKG" >"$TMP/badpkg2.json"
req 422 invalid_problem "a package with a broken problem.json" -X PUT \
    "$URL/api/problems/$SLUG-copy" -H "Authorization: Bearer $PROF" \
    -H 'Content-Type: application/json' --data-binary @"$TMP/badpkg2.json"
# An upload whose COMMIT fails is in neither the database nor the registry
# (the registry takes the version before the commit and gives it back). A
# deferred foreign key that cannot hold, added behind the server's back,
# makes exactly the COMMIT fail.
sql_exec() { # sql_exec SQL: statements, outside any transaction
    if [ -n "$PG_DB" ]; then
        (cd "$ROOT/tests/server" && /usr/bin/python3 -c 'import sys; from serverlib import pg_rows; pg_rows(sys.argv[1], sys.argv[2])' "$PG_DB" "$1")
    else
        /usr/bin/python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1], isolation_level=None); c.executescript(sys.argv[2]); c.close()' "$TMP/data/attnjudge.db" "$1"
    fi
}
if [ -n "$PG_DB" ]; then
    sql_exec 'CREATE TABLE test_parent (id INTEGER PRIMARY KEY);
CREATE TABLE test_child (x INTEGER REFERENCES test_parent(id) DEFERRABLE INITIALLY DEFERRED);
CREATE FUNCTION test_fail_commit() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN INSERT INTO test_child VALUES (1); RETURN NEW; END $$;
CREATE TRIGGER test_fail_commit AFTER INSERT ON problem_versions
FOR EACH ROW EXECUTE FUNCTION test_fail_commit();'
else
    sql_exec "CREATE TABLE test_parent (id INTEGER PRIMARY KEY);
CREATE TABLE test_child (x INTEGER REFERENCES test_parent(id) DEFERRABLE INITIALLY DEFERRED);
CREATE TRIGGER test_fail_commit AFTER INSERT ON problem_versions
BEGIN INSERT INTO test_child VALUES (1); END;"
fi
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); pj=json.loads(d["problem_json"]); pj["slug"]=sys.argv[2]; d["problem_json"]=json.dumps(pj); print(json.dumps(d))' "$PKG" "$SLUG-gone" >"$TMP/gonepkg.json"
req 500 internal "an upload whose commit fails answers 500" -X POST "$URL/api/problems" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$TMP/gonepkg.json"
if [ -n "$PG_DB" ]; then
    sql_exec "DROP TRIGGER test_fail_commit ON problem_versions; DROP FUNCTION test_fail_commit();
DROP TABLE test_child; DROP TABLE test_parent;"
else
    sql_exec "DROP TRIGGER test_fail_commit; DROP TABLE test_child; DROP TABLE test_parent;"
fi
c -o "$TMP/plist.json" "$URL/api/problems"
[ "$(jget "$TMP/plist.json" 'any(p["slug"] == "'$SLUG'-gone" for p in d["problems"])')" = False ] &&
    [ "$(jget "$TMP/plist.json" 'any(p["slug"] == "'$SLUG'-copy" for p in d["problems"])')" = True ] &&
    [ "$(c -o /dev/null -w '%{http_code}' "$URL/api/problems/$SLUG-gone")" = 404 ] &&
    [ "$(db "SELECT count(*) FROM problems WHERE slug = '$SLUG-gone'")" = 0 ]
check "after a failed commit the database and GET /api/problems agree: no $SLUG-gone" $?
req 201 "" "the same upload succeeds once the database accepts it" -X POST "$URL/api/problems" \
    -H "Authorization: Bearer $PROF" -H 'Content-Type: application/json' --data-binary @"$TMP/gonepkg.json"
c -o "$TMP/plist.json" "$URL/api/problems"
[ "$(jget "$TMP/plist.json" 'any(p["slug"] == "'$SLUG'-gone" and p["version"] == 1 for p in d["problems"])')" = True ]
check "GET /api/problems lists it at once, as version 1" $?
f=$(first_case accepted)
if [ -n "$f" ]; then
    cid=$(submit "$ALICE" "$f" "$SLUG-copy")
    [ "$(jget "$TMP/subr.json" 'd["problem_version"]')" = 2 ] && [ "$(wait_verdict "$ALICE" "$cid")" = accepted ]
    check "a submission to the uploaded problem is judged against version 2" $?
    req 202 "" "instructor rejudges $SLUG" -X POST "$URL/api/problems/$SLUG/rejudge" \
        -H "Authorization: Bearer $PROF"
    [ "$(jget "$TMP/body" 'd["queued"]')" = 3 ] && [ "$(wait_verdict "$ALICE" "$AID")" = accepted ]
    check "rejudge re-queues 3 submissions and judges them again" $?
fi

# progress is data, never prose: {"stage"} or {"stage": "running", "test",
# "of", "kind"}, with the stages of the vocabulary. Polled every 50 ms while
# one submission is judged (at most 30 s).
# A user and a problem of their own, so that no count below changes.
req 201 "" "register pat" -X POST "$URL/api/users" -H 'Content-Type: application/json' \
    -d '{"username":"pat","password":"pat-password"}'
PAT=$(signin pat pat-password)
pf=$(ls "$ROOT"/tests/submissions/mha-block-postln/accepted/*.c | head -1)
if [ -n "$pf" ]; then
    pid_=$(submit "$PAT" "$pf" mha-block-postln)
    : >"$TMP/progress.log"
    for _ in $(seq 600); do
        c "$URL/api/submissions/$pid_" -H "Authorization: Bearer $PAT" >>"$TMP/progress.log"
        echo >>"$TMP/progress.log"
        tail -n 1 "$TMP/progress.log" | grep -q '"status":"done"' && break
        sleep 0.05
    done
fi
/usr/bin/python3 - "$TMP/progress.log" "$TMP/vocab.cli" <<'EOF'
import json, sys
stages = json.load(open(sys.argv[2]))["progress_stages"]
seen = [d["progress"] for d in map(json.loads, filter(str.strip, open(sys.argv[1])))
        if d["status"] == "judging"]
def ok(p):
    if p is None:
        return True
    if not isinstance(p, dict) or p.get("stage") not in stages:
        return False
    if p["stage"] != "running":
        return set(p) == {"stage"}
    return (isinstance(p.get("test"), int) and isinstance(p.get("of"), int) and 1 <= p["test"] <= p["of"]
            and p.get("kind") in ("sample", "hidden"))
bad = [p for p in seen if not ok(p)]
if bad:
    print("bad progress: %r" % bad[:3])
sys.exit(1 if bad or not any(p for p in seen) else 0)
EOF
check "progress while judging is data: stage, test i of n, kind" $?
