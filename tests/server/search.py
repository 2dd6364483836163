"""The counterexample search through a real server (judge/search.c):

- a submission that passes every test of softmax-stable but skips the last
  element in its row maximum is wrong_answer by a counterexample: its
  author's report shows the search (inputs tried, time, worst ratio) and
  the counterexample in full (inputs, expected and actual values, where it
  differs), and names the known mistake it matches (evidence "search");
- GET /api/submissions/{id}/counterexample is a sample kit of one case
  whose .npy files hold exactly the report's values; another student gets
  404 for it;
- a correct submission stays accepted, with the search in its report and
  no counterexample to download;
- a problem whose own search.budget_ms is 0 does not search.

    python3 tests/server/search.py BUILD_DIR/attnjudge
"""
import io
import json
import os
import shutil
import sys
import zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, run_scenario, source, submission, wait_until  # noqa: E402

SLUG = "softmax-stable"
OFF = "softmax-search-off"
WRONG = "tests/cli/search/max_skips_last.c"
RIGHT = "tests/submissions/softmax-stable/accepted/online_softmax.c"


def problems(tmp):
    """softmax-stable with tests/cli/search/package.json's tests, input
    domain and known mistake."""
    root = os.path.join(tmp, "problems")
    pkg = os.path.join(root, SLUG)
    shutil.copytree(os.path.join(ROOT, "problems", SLUG), pkg)
    shutil.copy(os.path.join(ROOT, WRONG), os.path.join(pkg, "mistakes", "max-skips-last.c"))
    path = os.path.join(pkg, "problem.json")
    with open(path, encoding="utf-8") as f:
        p = json.load(f)
    # the tests, domain and mistake the CLI's search tests use too
    with open(os.path.join(ROOT, "tests/cli/search/package.json"), encoding="utf-8") as f:
        fixture = json.load(f)
    p["tests"], p["domain"] = fixture["tests"], fixture["domain"]
    p.pop("search", None)
    p["mistakes"].append(fixture["mistake"])
    with open(path, "w", encoding="utf-8") as f:
        json.dump(p, f, indent=1)
    # the same problem with the search turned off in its package
    off = os.path.join(root, OFF)
    shutil.copytree(pkg, off)
    shutil.copy(os.path.join(ROOT, "reference", SLUG + ".c"), os.path.join(off, "reference.c"))
    p["slug"] = OFF
    p["search"] = {"budget_ms": 0}
    with open(os.path.join(off, "problem.json"), "w", encoding="utf-8") as f:
        json.dump(p, f, indent=1)
    return root


def judged(cl, sid):
    got = {}

    def done():
        got["s"] = submission(cl, sid) or {}
        return got["s"].get("status") == "done"

    wait_until(done, 300, 0.3)
    return got["s"]


def values(t):
    return np.array([float(v) for v in t["values"]], dtype=np.float32).reshape(t["shape"])


def scenario(srv, rep):
    alice, bob = srv.client(), srv.client()
    alice.sign_up("alice")
    bob.sign_up("bob")
    st, body, _ = alice.submit(SLUG, source(WRONG))
    rep.check("the wrong submission is queued", st == 202, "%d %s" % (st, body))
    sid = body.get("id", 0)
    sub = judged(alice, sid)
    s = sub.get("search") or {}
    cx = s.get("counterexample") or {}
    rep.check("wrong_answer by the search: every test passed, a counterexample found",
              sub.get("verdict") == "wrong_answer" and s.get("found") is True and
              all(t["verdict"] == "accepted" for t in sub.get("tests", [])),
              json.dumps(sub)[:400])
    rep.check("the report says what the search did: inputs, time, worst ratio",
              s.get("inputs", 0) >= 1 and s.get("ms", 0) > 0 and "worst_ratio" in s and
              s.get("budget_ms") == 3000, json.dumps(s)[:300])
    rep.check("the counterexample in full, in the author's view: inputs, expected, actual",
              cx.get("dims", {}).get("rows", 0) >= 1 and
              len(cx["inputs"]["x"]["values"]) == cx["dims"]["rows"] * cx["dims"]["cols"] and
              "NaN" in cx["actual"]["y"]["values"] and cx["tensors"][0]["first_mismatches"],
              json.dumps(cx)[:400])
    rep.check("the diagnosis names the known mistake, evidence search",
              (sub.get("diagnosis") or {}).get("mistake") == "max-skips-last" and
              sub["diagnosis"].get("evidence") == "search", json.dumps(sub.get("diagnosis")))

    r, raw = alice.exchange("GET", "/api/submissions/%d/counterexample" % sid,
                            headers={"Authorization": "Bearer " + alice.token})
    rep.check("the counterexample downloads as a zip", r.status == 200 and
              r.getheader("Content-Type") == "application/zip", "%d %s" % (r.status, raw[:200]))
    if r.status == 200:
        top = SLUG + "-counterexample/"
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            names = set(z.namelist())
            want = {top + n for n in ("main.c", "Makefile", "caseio.c", "caseio.h", "attnjudge.h",
                                      "README.txt", "cases/counterexample/case.json",
                                      "cases/counterexample/inputs/x.npy",
                                      "cases/counterexample/expected/y.npy")}
            rep.check("the kit's files and the one case", want <= names, str(sorted(names)))
            x = np.load(io.BytesIO(z.read(top + "cases/counterexample/inputs/x.npy")))
            y = np.load(io.BytesIO(z.read(top + "cases/counterexample/expected/y.npy")))
            case = json.loads(z.read(top + "cases/counterexample/case.json"))
        rep.check("its .npy files hold the report's values",
                  np.array_equal(x, values(cx["inputs"]["x"])) and
                  np.array_equal(y, values(cx["expected"]["y"])), "%s %s" % (x, y))
        rep.check("its case.json has the dims", case.get("dims") == cx["dims"] and
                  case.get("test") == "counterexample", json.dumps(case))
    r, raw = bob.exchange("GET", "/api/submissions/%d/counterexample" % sid,
                          headers={"Authorization": "Bearer " + bob.token})
    rep.check("another student: 404", r.status == 404, "%d" % r.status)

    st, body, _ = alice.submit(SLUG, source(RIGHT))
    sid2 = body.get("id", 0)
    sub = judged(alice, sid2)
    s = sub.get("search") or {}
    rep.check("a correct submission stays accepted, the search in its report",
              sub.get("verdict") == "accepted" and s.get("found") is False and
              s.get("inputs", 0) >= 1 and s.get("worst_ratio", 1) < 1 and
              "counterexample" not in s, json.dumps(sub)[:400])
    st, _, _ = alice.call("GET", "/api/submissions/%d/counterexample" % sid2)
    rep.check("nothing to download for it: 404", st == 404, str(st))

    st, body, _ = alice.submit(OFF, source(WRONG))
    sub = judged(alice, body.get("id", 0))
    rep.check("a problem with search.budget_ms 0: accepted, no search",
              sub.get("verdict") == "accepted" and "search" not in sub, json.dumps(sub)[:300])


def main():
    return run_scenario(sys.argv[1], "search", scenario, problems=problems,
                        conf={"search_budget_ms": 3000}, instructor=False)


if __name__ == "__main__":
    sys.exit(main())
