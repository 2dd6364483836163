"""Drafts that follow the student (issue 11, item 7), through a real
server: a draft saved from one session ("the lab machine") is read from
another ("the laptop"); each save returns the next revision; a save naming
an older revision is 409 draft_conflict with the stored draft; the size
limit (413), bad bodies (400), someone else's draft (none: 404), a hidden
problem (404), anonymous callers (401), deletion, and the per-user limit
on saves (429).

    python3 tests/server/drafts.py BUILD_DIR/attnjudge
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, expect, run_scenario  # noqa: E402

SLUG = "softmax-stable"


def problems_dir(tmp):
    root = os.path.join(tmp, "problems")
    for slug in (SLUG, "layernorm"):
        shutil.copytree(os.path.join(ROOT, "problems", slug), os.path.join(root, slug))
    return root


def run(srv, rep):
    anon, prof = srv.client(), srv.client()
    prof.sign_in("prof", "prof-password")
    lab, laptop, bob = srv.client(), srv.client(), srv.client()
    lab.sign_up("alice")
    laptop.sign_in("alice", "alice-password")
    bob.sign_up("bob")
    path = "/api/drafts/" + SLUG

    expect(rep, "no draft yet", lab.call("GET", path), 404, "not_found")
    st, body, _ = lab.call("PUT", path, {"source": "int x; /* lab */\n"})
    rep.check("save from the lab: revision 1", st == 200 and body["revision"] == 1
              and body["problem"] == SLUG and body["updated_at"], json.dumps(body))
    st, body, _ = laptop.call("GET", path)
    rep.check("the laptop reads the lab's draft", st == 200
              and body["source"] == "int x; /* lab */\n" and body["revision"] == 1,
              json.dumps(body))
    st, body, _ = laptop.call("PUT", path, {"source": "int x; /* laptop */\n", "revision": 1})
    rep.check("the laptop saves on top of revision 1: revision 2", st == 200
              and body["revision"] == 2, json.dumps(body))
    st, body, _ = lab.call("PUT", path, {"source": "int x; /* stale lab */\n", "revision": 1})
    rep.check("the lab saves on top of revision 1 again: 409 draft_conflict with the stored one",
              st == 409 and body["error"]["code"] == "draft_conflict"
              and body["draft"]["revision"] == 2
              and body["draft"]["source"] == "int x; /* laptop */\n", json.dumps(body))
    st, body, _ = lab.call("PUT", path, {"source": "int x; /* forced */\n"})
    rep.check("a save without a revision wins: revision 3", st == 200 and body["revision"] == 3)
    expect(rep, "bob has no draft of alice's", bob.call("GET", path), 404, "not_found")
    expect(rep, "anonymous: GET", anon.call("GET", path), 401, "unauthorized")
    expect(rep, "anonymous: PUT", anon.call("PUT", path, {"source": "x"}), 401, "unauthorized")
    expect(rep, "too large", lab.call("PUT", path, {"source": "x" * (64 * 1024 + 1)}), 413,
           "payload_too_large")
    expect(rep, "no source", lab.call("PUT", path, {"revision": 3}), 400, "invalid_request")
    expect(rep, "a negative revision", lab.call("PUT", path, {"source": "x", "revision": -1}),
           400, "invalid_request")
    expect(rep, "an unknown field", lab.call("PUT", path, {"source": "x", "text": "y"}), 400,
           "invalid_request")
    expect(rep, "a bad slug", lab.call("GET", "/api/drafts/Bad_Slug"), 400, "invalid_slug")
    expect(rep, "an unknown problem", lab.call("PUT", "/api/drafts/no-such", {"source": "x"}),
           404, "not_found")
    prof.call("PATCH", "/api/problems/layernorm", {"state": "draft"})
    expect(rep, "a draft problem (hidden from students)", lab.call(
        "PUT", "/api/drafts/layernorm", {"source": "x"}), 404, "not_found")
    expect(rep, "an instructor may keep a draft of a draft problem", prof.call(
        "PUT", "/api/drafts/layernorm", {"source": "x"}), 200)
    expect(rep, "DELETE", lab.call("DELETE", path), 204)
    expect(rep, "after DELETE: none", laptop.call("GET", path), 404, "not_found")
    expect(rep, "DELETE again", lab.call("DELETE", path), 404, "not_found")
    codes = [bob.call("PUT", path, {"source": "s%d" % i})[0] for i in range(32)]
    rep.check("saves are limited per user (30 at once, then 429)",
              codes[:30] == [200] * 30 and codes[30:] == [429, 429], repr(codes))
    expect(rep, "... another user is not held up", lab.call("PUT", path, {"source": "y"}), 200)


def main():
    return run_scenario(sys.argv[1], "drafts", run, problems=problems_dir, workers=1)


if __name__ == "__main__":
    sys.exit(main())
