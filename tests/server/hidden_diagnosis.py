"""A known mistake named from the failed hidden tests, through a real server:

- a submission right on every sample test and wrong on hidden ones, whose
  hidden outputs match a known mistake, carries that mistake's diagnosis
  (id, title, hint, evidence "hidden") in its author's report;
- the hidden tests in that report stay redacted: verdict, weight, dims and
  a time class, no error statistic, message, tensor or value;
- no number of the hidden tests appears in the diagnosis either (it is the
  package's words, equal to problem.json's).

    python3 tests/server/hidden_diagnosis.py BUILD_DIR/attnjudge
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, Report, Server, wait_until  # noqa: E402

SLUG = "gpt2-attention"
HIDDEN_VIEW = {"name", "kind", "verdict", "weight", "dims", "time_class"}


def hidden_only_mistake():
    """The reference with the causal mask dropped beyond the samples' lengths
    (T <= 72): right on every sample test, no-causal-mask on longer ones."""
    with open(os.path.join(ROOT, "reference", SLUG + ".c"), encoding="utf-8") as f:
        text = f.read()
    old = "for (int s = 0; s <= t; s++)"
    assert old in text, "the reference's causal loop moved"
    return text.replace(old, "for (int s = 0; s < (T > 72 ? T : t + 1); s++)")


def scenario(srv, rep):
    alice = srv.client()
    alice.sign_up("alice")
    st, body, _ = alice.submit(SLUG, hidden_only_mistake())
    rep.check("the submission is queued", st == 202, "%d %s" % (st, body))
    sid = body.get("id", 0)
    sub = {}

    def done():
        nonlocal sub
        sub = alice.call("GET", "/api/submissions/%d" % sid)[1]
        return sub.get("status") == "done"

    rep.check("it is judged", wait_until(done, 240, 0.3), str(sub)[:300])
    tests = sub.get("tests", [])
    rep.check("wrong_answer, right on every sample test, wrong on a hidden one",
              sub.get("verdict") == "wrong_answer" and
              all(t["verdict"] == "accepted" for t in tests if t["kind"] == "sample") and
              any(t["verdict"] == "wrong_answer" for t in tests if t["kind"] == "hidden"),
              str(sub)[:400])
    with open(os.path.join(ROOT, "problems", SLUG, "problem.json"), encoding="utf-8") as f:
        known = {m["id"]: m for m in json.load(f)["mistakes"]}["no-causal-mask"]
    rep.check("the report names the mistake from the hidden tests: title and hint",
              sub.get("diagnosis") == {"mistake": "no-causal-mask", "title": known["title"],
                                       "hint": known["hint"], "evidence": "hidden"},
              json.dumps(sub.get("diagnosis")))
    hidden = [t for t in tests if t["kind"] == "hidden"]
    rep.check("hidden tests stay redacted: verdict, weight, dims and time class only",
              hidden and all(set(t) <= HIDDEN_VIEW for t in hidden),
              json.dumps(hidden)[:400])
    rep.check("no error statistic of a hidden test anywhere in the report",
              sub.get("time_ms") is None and "timing" not in sub, json.dumps(sub)[:300])


def main():
    binary = sys.argv[1]
    rep = Report()
    tmp = tempfile.mkdtemp(prefix="attnjudge-hidden-diagnosis.")
    os.chmod(tmp, 0o711)
    problems = os.path.join(tmp, "problems")
    shutil.copytree(os.path.join(ROOT, "problems", SLUG), os.path.join(problems, SLUG))
    srv = Server(binary, tmp, "hidden-diagnosis", workers=1, problems=problems)
    try:
        srv.start()
        scenario(srv, rep)
    except Exception as e:  # noqa: BLE001 - a crash of the test is one failure
        rep.check("the scenario ran to the end", False, repr(e))
    finally:
        srv.stop()
        if rep.failed:
            print("--- server log:\n" + srv.log_tail(20))
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()


if __name__ == "__main__":
    sys.exit(main())
