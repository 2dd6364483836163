"""An upload whose problem.json has several schema errors gets them all in
one reply, through a real server: 422 invalid_problem, the message the
first error (as before), and "errors" listing every error with its field.
Nothing is stored. A package that loads but fails the check (a reference
that does not compile) has no "errors" list. (Correct uploads are
hints.py's and the others'.)

    python3 tests/server/upload_errors.py BUILD_DIR/attnjudge
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, expect, run_scenario, source  # noqa: E402

SLUG = "softmax-stable"


def problems_dir(tmp):
    root = os.path.join(tmp, "problems")
    shutil.copytree(os.path.join(ROOT, "problems", SLUG), os.path.join(root, SLUG))
    return root


def package(slug, edit=None, reference=None):
    """softmax-stable as an upload under slug, problem.json changed by edit."""
    pj = json.load(open(os.path.join(ROOT, "problems", SLUG, "problem.json")))
    pj["slug"] = slug
    if edit:
        edit(pj)
    return {
        "problem_json": json.dumps(pj),
        "statement_md": source("problems/%s/statement.md" % SLUG),
        "starter_c": source("problems/%s/starter.c" % SLUG),
        "reference_c": reference or source("reference/%s.c" % SLUG),
        "mistakes": {m["id"]: source("problems/%s/mistakes/%s.c" % (SLUG, m["id"]))
                     for m in pj.get("mistakes", []) if isinstance(m, dict)},
    }


def four_errors(pj):
    pj["difficulty"] = "trivial"
    pj["tolerance"]["atol"] = -1
    pj["limits"] = {"cpu_ms": "fast"}
    pj["tests"][1]["kind"] = "secret"


def run(srv, rep):
    prof = srv.client()
    prof.sign_in("prof", "prof-password")

    st, body, _ = prof.call("POST", "/api/problems", package("four-errors", four_errors))
    errors = body.get("errors") or []
    fields = [e.get("field") for e in errors]
    rep.check("four schema errors: 422 invalid_problem", st == 422
              and body["error"]["code"] == "invalid_problem", json.dumps(body))
    rep.check("... all four listed, in problem.json's order, each with its field",
              fields == ["difficulty", "tolerance.atol", "limits.cpu_ms", "tests[1].kind"],
              json.dumps(body))
    rep.check("... each with its message, the field not repeated in it",
              len(errors) == 4
              and errors[0]["message"] == "'trivial' is not easy, medium or hard"
              and errors[3]["message"] == "'secret' is not 'sample' or 'hidden'",
              json.dumps(errors))
    rep.check("... the message is still the first error, whole",
              body["error"]["message"] == "difficulty: 'trivial' is not easy, medium or hard"
              and body.get("errors_not_listed") == 0, json.dumps(body))
    expect(rep, "... and nothing was stored", prof.call("GET", "/api/problems/four-errors"),
           404, "not_found")

    st, body, _ = prof.call("PUT", "/api/problems/one-error", package(
        "one-error", lambda pj: pj.pop("title")))
    rep.check("one missing field: one error, the field named",
              st == 422 and [e["field"] for e in body.get("errors", [])] == ["title"]
              and body["error"]["message"] == "missing 'title'", json.dumps(body))

    st, body, _ = prof.call("POST", "/api/problems", package(
        "no-compile", reference="this is not C\n"))
    rep.check("a package that loads but fails its check: 422 naming the reference, no list",
              st == 422 and body["error"]["message"].startswith("reference.c: compile_error")
              and "errors" not in body, json.dumps(body)[:400])


def main():
    return run_scenario(sys.argv[1], "upload_errors", run, problems=problems_dir, workers=1)


if __name__ == "__main__":
    sys.exit(main())
