"""The upload page's statement preview and the KaTeX rule of uploads,
through a real server.

POST /api/statement-preview renders Markdown with the renderer of the
problem page (a table is a <table>, **bold** is <strong>, raw HTML is
dropped): instructors only (401 signed out, 403 for a student), a body of
the documented shape (400), at most max_package_kib (413), and the HTML
equals the statement_html of a stored problem with the same statement.

POST /api/problems refuses a package whose math KaTeX cannot render, as
`attnjudge problem check` fails it: 422 invalid_problem naming the file and
line, and nothing is stored (the slug stays unknown, 404). A package whose
math renders is stored with "math_checked": true. A server that cannot
run the checker stores the package as it would without the check (a new
problem is a draft) and says "math_checked": false with a math_note that
names no server path.

    python3 tests/server/statement_math.py BUILD_DIR/attnjudge
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, Server, expect, run_scenario  # noqa: E402



def reachable_mathcheck():
    """A copy of the checker (web/mathcheck.mjs, its module and KaTeX) in a
    directory of its own that run_as can reach: a checkout in root's 0700
    home cannot be (docs/operations.md, `mathcheck`). Returns (dir, script)."""
    top = tempfile.mkdtemp(prefix="attnjudge-mathcheck.")
    os.chmod(top, 0o755)
    web = os.path.join(ROOT, "web")
    os.makedirs(os.path.join(top, "web", "src", "lib"))
    shutil.copy(os.path.join(web, "mathcheck.mjs"), os.path.join(top, "web"))
    shutil.copy(os.path.join(web, "src", "lib", "mathcheck.js"),
                os.path.join(top, "web", "src", "lib"))
    shutil.copytree(os.path.join(web, "node_modules", "katex"),
                    os.path.join(top, "web", "node_modules", "katex"))
    for d, dirs, files in os.walk(top):
        for n in dirs:
            os.chmod(os.path.join(d, n), 0o755)
        for n in files:
            os.chmod(os.path.join(d, n), 0o644)
    return top, os.path.join(top, "web", "mathcheck.mjs")
STATEMENT = ("# Row-wise softmax\n\nFor each row $r$ of `x` write **the softmax** of the row:\n\n"
             "| name | shape |\n|------|-------|\n| `x` | $(R, C)$ |\n| `out` | $(R, C)$ |\n\n"
             "$$\\mathrm{out}[r][j] = \\frac{e^{x[r][j] - m_r}}{\\sum_k e^{x[r][k] - m_r}}$$\n")
BAD_LINE = "And $\\frac{1}{2$ is broken."


def package(slug, statement=STATEMENT, hints=None):
    meta = {
        "slug": slug, "title": "Row-wise softmax", "difficulty": "easy", "tags": ["softmax"],
        "prerequisites": [], "function": "softmax_rows",
        "params": [{"name": "x", "type": "f32", "role": "in", "shape": ["R", "C"]},
                   {"name": "out", "type": "f32", "role": "out", "shape": ["R", "C"]},
                   {"name": "R", "type": "int"}, {"name": "C", "type": "int"}],
        "constraints": ["R >= 1", "C >= 1"],
        "generators": {"x": {"dist": "normal", "mean": 0, "std": 2}},
        "tolerance": {"atol": 1e-6, "rtol": 1e-5},
        "limits": {"cpu_ms": 1000, "wall_ms": 3000, "memory_mb": 256},
        "tests": [{"name": "sample-small", "kind": "sample", "seed": 7, "dims": {"R": 3, "C": 5}},
                  {"name": "wide", "kind": "hidden", "dims": {"R": 4, "C": 30}}],
    }
    body = {
        "problem_json": json.dumps(meta), "statement_md": statement,
        "starter_c": "void softmax_rows(const float *x, float *out, int R, int C)\n{\n    (void)x;\n"
                     "    for (int i = 0; i < R * C; i++)\n        out[i] = 0.0f;\n}\n",
        "reference_c": "#include <math.h>\n\nvoid softmax_rows(const float *x, float *out, int R, int C)\n"
                       "{\n    for (int r = 0; r < R; r++) {\n        const float *row = x + (long)r * C;\n"
                       "        double m = row[0], s = 0;\n        for (int j = 1; j < C; j++)\n"
                       "            if (row[j] > m) m = row[j];\n        for (int j = 0; j < C; j++)\n"
                       "            s += exp((double)row[j] - m);\n        for (int j = 0; j < C; j++)\n"
                       "            out[(long)r * C + j] = (float)(exp((double)row[j] - m) / s);\n"
                       "    }\n}\n",
    }
    if hints:
        body["hints"] = hints
    return body


def run(srv, rep):
    anon, prof, student = srv.client(), srv.client(), srv.client()
    prof.sign_in("prof", "prof-password")
    student.sign_up("sam")

    # --- the preview ---
    st, body, _ = prof.call("POST", "/api/statement-preview",
                            {"markdown": STATEMENT + "\n<script>alert(1)</script>\n"})
    html = (body or {}).get("html", "")
    rep.check("preview: 200 with the HTML", st == 200 and isinstance(html, str), json.dumps(body))
    rep.check("preview: the table is a <table> with its header",
              "<table>" in html and "<th>name</th>" in html and "<td><code>x</code></td>" in html,
              html)
    rep.check("preview: **bold** is <strong>", "<strong>the softmax</strong>" in html, html)
    rep.check("preview: the math is left for KaTeX", "$(R, C)$" in html and "$$\\mathrm{out}" in html,
              html)
    rep.check("preview: raw HTML is dropped", "<script" not in html, html)
    expect(rep, "preview signed out", anon.call("POST", "/api/statement-preview", {"markdown": "x"}),
           401, "unauthorized")
    expect(rep, "preview by a student", student.call("POST", "/api/statement-preview",
                                                     {"markdown": "x"}), 403, "forbidden")
    expect(rep, "preview of an unknown field", prof.call("POST", "/api/statement-preview",
                                                         {"text": "x"}), 400, "invalid_request")
    expect(rep, "preview of more than max_package_kib", prof.call(
        "POST", "/api/statement-preview", {"markdown": "x" * (64 * 1024 + 1)}), 413,
        "payload_too_large")

    # --- the KaTeX rule of uploads ---
    bad = STATEMENT + "\n" + BAD_LINE + "\n"
    line = len(STATEMENT.split("\n")) + 1
    st, body, _ = prof.call("POST", "/api/problems", package("rows-badmath", bad))
    msg = (body or {}).get("error", {}).get("message", "")
    rep.check("upload with math KaTeX cannot render: 422 invalid_problem",
              st == 422 and body["error"]["code"] == "invalid_problem", json.dumps(body))
    rep.check("... naming the file and the line, as problem check does",
              msg.startswith("statement.md:%d: KaTeX cannot render this math:" % line), msg)
    rep.check("... and naming no server path", srv.dir not in msg and "/v1/" not in msg, msg)
    expect(rep, "... nothing was stored", prof.call("GET", "/api/problems/rows-badmath"), 404,
           "not_found")
    st, body, _ = prof.call("POST", "/api/problems",
                            package("rows-badhint", hints=["Think of $\\sqrt{x$.\n"]))
    msg = (body or {}).get("error", {}).get("message", "")
    rep.check("a hint with math KaTeX cannot render: 422 naming hints/1.md:1",
              st == 422 and msg.startswith("hints/1.md:1: KaTeX cannot render this math:"),
              json.dumps(body))
    st, body, _ = prof.call("POST", "/api/problems", package("rows-good"))
    rep.check("upload whose math renders: 201, math_checked true, no math_note",
              st == 201 and body.get("math_checked") is True and "math_note" not in body,
              json.dumps(body))
    st, body, _ = prof.call("GET", "/api/problems/rows-good")
    rep.check("the stored statement_html is the preview's HTML of the same text",
              st == 200 and body["statement_html"] == prof.call(
                  "POST", "/api/statement-preview", {"markdown": STATEMENT})[1]["html"],
              json.dumps(body)[:300])

    # --- a second server, whose checker cannot run ---
    other = Server(srv.binary, os.path.dirname(srv.dir), "unchecked", workers=1,
                   conf={"mathcheck": "/nowhere/web/mathcheck.mjs"})
    try:
        other.add_user("prof", "prof-password", "instructor")
        other.start()
        run_unchecked(other, rep)
    finally:
        other.stop()


def run_unchecked(srv, rep):
    prof = srv.client()
    prof.sign_in("prof", "prof-password")
    bad = STATEMENT + "\n" + BAD_LINE + "\n"
    st, body, _ = prof.call("POST", "/api/problems", package("rows-unchecked", bad))
    note = (body or {}).get("math_note", "")
    rep.check("without the checker: stored (201), math_checked false",
              st == 201 and body.get("math_checked") is False, json.dumps(body))
    rep.check("... math_note says the math was not checked, naming no server path",
              "not checked with KaTeX" in note and "mathcheck.mjs" in note
              and srv.dir not in note and "/nowhere" not in note, note)
    st, body, _ = prof.call("GET", "/api/problems/rows-unchecked")
    rep.check("... a new problem is a draft", st == 200 and body.get("state") == "draft",
              json.dumps(body)[:300])
    rep.check("... and the server's log says why",
              "not checked with KaTeX" in srv.log(), srv.log_tail(5))


def main():
    top, script = reachable_mathcheck()
    try:
        return run_scenario(sys.argv[1], "statement_math", run, workers=1,
                            conf={"mathcheck": script, "max_package_kib": 64})
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
