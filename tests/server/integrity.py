"""Integrity (issue 11, item 6), through a real server: the archive of
every student's chosen source of a problem (their last accepted one, else
their last), with a manifest; the similarity report, where a copy with
renamed variables, new layout and comments is the top pair and an
independent solution is not reported; the starter and reference are not
counted; bad parameters and every wrong caller.

    python3 tests/server/integrity.py BUILD_DIR/attnjudge
"""
import csv
import io
import json
import os
import re
import shutil
import sys
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, expect, run_scenario, source, wait_until  # noqa: E402

SLUG = "softmax-stable"
ORIGINAL = source("tests/submissions/%s/accepted/plain_float.c" % SLUG)
INDEPENDENT = source("tests/submissions/%s/accepted/online_softmax.c" % SLUG)
WRONG = source("tests/submissions/%s/wrong_answer/max_init_zero.c" % SLUG)


def disguise(text):
    """A copy as a student would hide it: renamed, re-laid-out, commented."""
    for old, new in [("xr", "src"), ("yr", "dst"), (r"\bm\b", "biggest"), ("sum", "total"),
                     (r"\br\b", "row"), (r"\bc\b", "k")]:
        text = re.sub(old, new, text)
    text = text.replace("    ", "  ").replace("{\n", "{ // start\n")
    return "/* softmax, written by me */\n" + text


def problems_dir(tmp):
    root = os.path.join(tmp, "problems")
    shutil.copytree(os.path.join(ROOT, "problems", SLUG), os.path.join(root, SLUG))
    return root


def submit(client, src):
    st, body, _ = client.submit(SLUG, src)
    sid = body["id"]
    wait_until(lambda: client.call("GET", "/api/submissions/%d" % sid)[1]["status"] == "done",
               120, 0.2)
    return sid


def run(srv, rep):
    anon, prof = srv.client(), srv.client()
    prof.sign_in("prof", "prof-password")
    users = {}
    for name in ["alice", "bob", "carol", "dave", "erin"]:
        users[name] = srv.client()
        users[name].sign_up(name)
    ids = {"alice": submit(users["alice"], ORIGINAL),
           "bob": submit(users["bob"], disguise(ORIGINAL)),
           "carol": submit(users["carol"], INDEPENDENT)}
    ids["dave"] = submit(users["dave"], ORIGINAL.replace("float sum", "float  sum"))
    submit(users["dave"], WRONG)  # later, but wrong: the accepted one stands for dave
    submit(users["erin"], WRONG)
    ids["erin"] = submit(users["erin"], WRONG + "\n/* second try */\n")

    r, data = prof.exchange("GET", "/api/problems/%s/sources" % SLUG,
                            headers={"Authorization": "Bearer " + prof.token})
    rep.check("sources: a zip attachment", r.status == 200
              and r.getheader("Content-Type") == "application/zip"
              and "%s-sources.zip" % SLUG in r.getheader("Content-Disposition", ""))
    z = zipfile.ZipFile(io.BytesIO(data))
    names = sorted(z.namelist())
    rep.check("sources: one file per student and the manifest", names == sorted(
        ["%s-sources/%s.c" % (SLUG, u) for u in users] + ["%s-sources/MANIFEST.csv" % SLUG]),
        repr(names))
    rep.check("sources: bob's file is bob's source", z.read("%s-sources/bob.c" % SLUG).decode()
              == disguise(ORIGINAL))
    manifest = list(csv.DictReader(io.StringIO(z.read("%s-sources/MANIFEST.csv" % SLUG)
                                               .decode())))
    by_user = {m["username"]: m for m in manifest}
    rep.check("sources: dave's last accepted, not his later wrong one",
              by_user["dave"]["submission"] == str(ids["dave"])
              and by_user["dave"]["verdict"] == "accepted", json.dumps(by_user["dave"]))
    rep.check("sources: erin (nothing accepted) has her last one",
              by_user["erin"]["submission"] == str(ids["erin"])
              and by_user["erin"]["verdict"] == "wrong_answer", json.dumps(by_user["erin"]))

    st, body, _ = prof.call("GET", "/api/problems/%s/similarity" % SLUG)
    pairs = body.get("pairs", []) if st == 200 else []
    rep.check("similarity: 200 with the parameters", st == 200 and body["students"] == 5
              and body["parameters"] == {"k": 12, "window": 8}, json.dumps(body)[:300])
    rep.check("similarity: the disguised copy is among the top pairs with alice",
              any(sorted(p["users"]) == ["alice", "bob"] and p["score"] >= 0.9
                  for p in pairs[:3]), json.dumps([(p["users"], p["score"]) for p in pairs]))
    rep.check("similarity: most similar first", [p["score"] for p in pairs]
              == sorted((p["score"] for p in pairs), reverse=True))
    rep.check("similarity: the independent solution is not reported (min 0.3)",
              all("carol" not in p["users"] for p in pairs),
              json.dumps([(p["users"], p["score"]) for p in pairs]))
    ab = [p for p in pairs if sorted(p["users"]) == ["alice", "bob"]]
    frags = ab[0]["fragments"] if ab else []
    orig, copy = ORIGINAL.split("\n"), disguise(ORIGINAL).split("\n")
    rep.check("similarity: fragments side by side, each side the text of its lines",
              frags and all(
                  f[s]["text"].rstrip("\n").split("\n")
                  == src[f[s]["from_line"] - 1:f[s]["to_line"]]
                  for f in frags for s, src in
                  (("a", orig if ab[0]["users"][0] == "alice" else copy),
                   ("b", copy if ab[0]["users"][0] == "alice" else orig))),
              json.dumps(frags)[:400])
    st, body, _ = prof.call("GET", "/api/problems/%s/similarity?min=0&limit=1" % SLUG)
    rep.check("similarity: limit", st == 200 and len(body["pairs"]) == 1)
    for q in ["min=2", "min=x", "limit=0", "limit=99999"]:
        expect(rep, "similarity?" + q, prof.call(
            "GET", "/api/problems/%s/similarity?%s" % (SLUG, q)), 400, "invalid_parameter")
    for path in ["/api/problems/%s/sources" % SLUG, "/api/problems/%s/similarity" % SLUG]:
        expect(rep, "a student: " + path, users["alice"].call("GET", path), 403, "forbidden")
        expect(rep, "anonymous: " + path, anon.call("GET", path), 401, "unauthorized")
    expect(rep, "an unknown problem", prof.call("GET", "/api/problems/no-such/similarity"), 404,
           "not_found")
    expect(rep, "a bad slug", prof.call("GET", "/api/problems/Bad_Slug/sources"), 400,
           "invalid_slug")


def main():
    return run_scenario(sys.argv[1], "integrity", run, problems=problems_dir, workers=2, conf={"user_queue_max": 10})


if __name__ == "__main__":
    sys.exit(main())
