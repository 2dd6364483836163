"""Ungraded runs and the sample archive (issue 10, item 1) through a real
server:

- POST /api/runs judges a source on the sample tests only, with the exact
  verdicts of a correct and a wrong corpus solution (and the wrong one's
  diagnosis), and never becomes a submission: not in /api/submissions, the
  leaderboard, the grades CSV or the submissions table;
- errors: bad JSON, missing or unknown fields, a bad slug, an unknown
  problem (404), a source over max_source_kib (413), no session (401),
  someone else's run (404); the per-user run bucket answers 429
  rate_limited with Retry-After, a second run while one is pending 429
  run_pending, a full run queue 503 busy, both with Retry-After;
- GET /api/problems/{slug}/samples (anonymous): a zip whose generated
  main.c, built with a correct corpus solution, reports a match on every
  sample case (every problem; mha-cross has a NULL mask), and with a wrong
  one a mismatch (mha-cross, gpt2-attention, layernorm); its .npy files are the bytes of
  `attnjudge export --test`; no hidden test of any problem appears in any
  archive.

    python3 tests/server/runs.py BUILD_DIR/attnjudge
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import ROOT, Report, Server, source, wait_until  # noqa: E402

RUN_BURST = 6  # the rate-limit user's bucket; nothing refills during the test
# (problem, correct solution, wrong solution whose samples are wrong)
ARCHIVE_CASES = [
    ("mha-cross", "accepted/plain_float.c", "wrong_answer/heads_interleaved.c"),
    ("gpt2-attention", "accepted/plain_float.c", "wrong_answer/no_causal_mask.c"),
    ("layernorm", "accepted/welford.c", "wrong_answer/eps_outside_sqrt.c"),
]


def problem_json(slug):
    with open(os.path.join(ROOT, "problems", slug, "problem.json"), encoding="utf-8") as f:
        return json.load(f)


def corpus(slug, rel):
    return source("tests/submissions/%s/%s" % (slug, rel))


def wait_run(cl, rid, limit_s=120):
    """Polls GET /api/runs/{id} until done; returns the last body."""
    last = {}

    def done():
        nonlocal last
        st, body, _ = cl.call("GET", "/api/runs/%d" % rid)
        last = body if st == 200 else {"http_status": st, "body": body}
        return st == 200 and body["status"] == "done"

    wait_until(done, limit_s, 0.2)
    return last


def main():
    binary = sys.argv[1]
    rep = Report()
    tmp = tempfile.mkdtemp(prefix="attnjudge-runs.")
    # a server started as root runs as run_as, which must reach its data
    # directory by name (docs/operations.md)
    os.chmod(tmp, 0o711)
    srv = Server(binary, tmp, "runs", {
        "run_burst": RUN_BURST, "run_rate_per_min": 0.001, "run_queue_max": 1, "run_workers": 1,
        "max_source_kib": 16}, workers=1)
    try:
        srv.add_user("prof", "prof-password", "instructor")
        srv.start()
        runs(srv, rep)
        limits(srv, rep)
        archives(srv, binary, tmp, rep)
    except Exception as e:  # noqa: BLE001 - a crash of the test is one failure
        rep.check("runs scenario ran to the end", False, repr(e))
    finally:
        srv.stop()
        if rep.failed:
            print("--- server log:\n" + srv.log_tail(30))
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()


def runs(srv, rep):
    slug = "gpt2-attention"
    samples = [t["name"] for t in problem_json(slug)["tests"] if t["kind"] == "sample"]
    alice = srv.client()
    alice.sign_up("alice")
    st, body, resp = alice.call("POST", "/api/runs",
                                {"problem": slug, "source": corpus(slug, "accepted/plain_float.c")})
    rep.check("a run is accepted: 202 queued, ungraded, with its Location",
              st == 202 and body["status"] == "queued" and body["ungraded"] is True and
              resp.getheader("Location") == "/api/runs/%d" % body["id"], "%d %s" % (st, body))
    run = wait_run(alice, body["id"])
    rep.check("a correct solution's run: accepted", run.get("verdict") == "accepted", str(run)[:300])
    rep.check("the run holds the sample tests only, each accepted",
              [(t["name"], t["kind"], t["verdict"]) for t in run.get("tests", [])] ==
              [(n, "sample", "accepted") for n in samples], str(run.get("tests"))[:300])
    rep.check("a run reports like a submission's samples (errors, tensors, times)",
              all("max_abs_err" in t and "tensors" in t and "time_ms" in t
                  for t in run.get("tests", [])), str(run.get("tests"))[:300])

    st, body, _ = alice.call("POST", "/api/runs",
                             {"problem": slug, "source": corpus(slug, "wrong_answer/no_causal_mask.c")})
    run = wait_run(alice, body["id"]) if st == 202 else {}
    # one token has no future to mask: right there, wrong on every other sample
    t_of = {t["name"]: t["dims"]["T"] for t in problem_json(slug)["tests"]}
    rep.check("a wrong solution's run: wrong_answer on each sample test with T > 1",
              run.get("verdict") == "wrong_answer" and
              [t["verdict"] for t in run.get("tests", [])] ==
              ["wrong_answer" if t_of[n] > 1 else "accepted" for n in samples],
              str(run)[:300])
    rep.check("the wrong run names its known mistake (no-causal-mask)",
              (run.get("diagnosis") or {}).get("mistake") == "no-causal-mask", str(run)[:300])
    wrong = [t for t in run.get("tests", []) if t["verdict"] == "wrong_answer"]
    rep.check("a wrong run shows where: first mismatches in tensor coordinates",
              wrong and all(t["tensors"][0]["first_mismatches"] for t in wrong), str(wrong)[:300])

    st, body, _ = alice.call("GET", "/api/submissions?mine=1")
    rep.check("runs are not submissions: /api/submissions is empty",
              st == 200 and body["submissions"] == [], "%d %s" % (st, body))
    st, body, _ = alice.call("GET", "/api/leaderboard/%s" % slug)
    rep.check("runs are not on the leaderboard", st == 200 and "alice" not in json.dumps(body),
              json.dumps(body)[:300])
    prof = srv.client()
    prof.sign_in("prof", "prof-password")
    r, raw = prof.exchange("GET", "/api/grades.csv", headers={"Authorization": "Bearer " + prof.token})
    rows = list(csv.reader(io.StringIO(raw.decode())))
    rep.check("runs are not in the grades CSV",
              r.status == 200 and not any("alice" in row for row in rows), str(rows)[:300])
    n = srv.db("SELECT count(*) FROM submissions")[0][0]
    rep.check("runs are not stored: the submissions table is empty", n == 0, "%d rows" % n)

    # someone else's run is 404, like a missing one; ids are checked
    bob = srv.client()
    bob.sign_up("bob")
    st, body, _ = bob.call("GET", "/api/runs/%d" % run.get("id", 1))
    rep.check("someone else's run: 404 not_found",
              st == 404 and body["error"]["code"] == "not_found", "%d %s" % (st, body))
    st, body, _ = bob.call("GET", "/api/runs/abc")
    rep.check("a run id that is not a number: 400 invalid_id",
              st == 400 and body["error"]["code"] == "invalid_id", "%d %s" % (st, body))

    def err(name, status, code, method, path, body=None, headers=None, cl=None, raw=None):
        c = cl or bob
        if raw is not None:
            h = {"Content-Type": "application/json", "Authorization": "Bearer " + c.token}
            r, text = c.exchange(method, path, raw, h)
            st, b = r.status, json.loads(text) if text else None
        else:
            st, b, _ = c.call(method, path, body, headers=headers)
        rep.check(name, st == status and b and b["error"]["code"] == code, "%d %s" % (st, b))

    err("bad JSON: 400 bad_json", 400, "bad_json", "POST", "/api/runs", raw=b'{"problem": ')
    err("missing source: 400 invalid_request", 400, "invalid_request", "POST", "/api/runs",
        {"problem": slug})
    err("an unknown field: 400 invalid_request", 400, "invalid_request", "POST", "/api/runs",
        {"problem": slug, "source": "x", "graded": True})
    err("an empty source: 400 invalid_request", 400, "invalid_request", "POST", "/api/runs",
        {"problem": slug, "source": ""})
    err("a bad slug: 400 invalid_slug", 400, "invalid_slug", "POST", "/api/runs",
        {"problem": "../etc", "source": "int x;"})
    err("an unknown problem: 404 not_found", 404, "not_found", "POST", "/api/runs",
        {"problem": "no-such-problem", "source": "int x;"})
    err("a source over max_source_kib: 413 payload_too_large", 413, "payload_too_large", "POST",
        "/api/runs", {"problem": slug, "source": "/*" + "a" * 17000 + "*/"})
    anon = srv.client()
    st, b, _ = anon.call("POST", "/api/runs", {"problem": slug, "source": "int x;"})
    rep.check("anonymous: 401 unauthorized", st == 401 and b["error"]["code"] == "unauthorized",
              "%d %s" % (st, b))
    st, b, _ = anon.call("GET", "/api/runs/1")
    rep.check("anonymous GET of a run: 401 unauthorized",
              st == 401 and b["error"]["code"] == "unauthorized", "%d %s" % (st, b))


def limits(srv, rep):
    slug = "gpt2-attention"
    quick = {"problem": slug, "source": corpus(slug, "compile_error/undeclared_identifier.c")}
    sleeper = {"problem": slug, "source": corpus(slug, "time_limit/waits_for_workers.c")}

    # one run at a time per user, and the run queue's bound (run_queue_max 1)
    carol, dave, erin = srv.client(), srv.client(), srv.client()
    carol.sign_up("carol")
    dave.sign_up("dave")
    erin.sign_up("erin")
    st, first, _ = carol.call("POST", "/api/runs", sleeper)
    judging = wait_until(lambda: carol.call("GET", "/api/runs/%d" % first["id"])[1]["status"]
                         == "judging", 30, 0.05) if st == 202 else False
    st2, b2, r2 = carol.call("POST", "/api/runs", quick)
    rep.check("a second run while one is pending: 429 run_pending with Retry-After",
              st2 == 429 and b2["error"]["code"] == "run_pending" and
              int(r2.getheader("Retry-After") or 0) >= 1, "%d %s" % (st2, b2))
    st3, b3, _ = dave.call("POST", "/api/runs", quick)
    queued = st3 == 202 and b3["status"] == "queued"
    st4, b4, r4 = erin.call("POST", "/api/runs", quick)
    rep.check("a full run queue: 503 busy with Retry-After",
              judging and queued and st4 == 503 and b4["error"]["code"] == "busy" and
              int(r4.getheader("Retry-After") or 0) >= 1,
              "judging %s, queued %s, %d %s" % (judging, queued, st4, b4))
    if queued:
        st, b, _ = dave.call("GET", "/api/runs/%d" % b3["id"])
        rep.check("a waiting run shows its queue position",
                  st == 200 and (b["status"] != "queued" or b["queue_position"] == 1),
                  "%d %s" % (st, b))
    run = wait_run(carol, first["id"]) if judging else {}
    rep.check("the sleeper's run: time_limit, the other sample tests not_run",
              run.get("verdict") == "time_limit" and
              {t["verdict"] for t in run["tests"][1:]} <= {"not_run"}, str(run)[:300])
    if queued:
        rep.check("the queued run then gets its verdict: compile_error",
                  wait_run(dave, b3["id"]).get("verdict") == "compile_error")

    # the per-user bucket: RUN_BURST runs, then 429 rate_limited
    frank = srv.client()
    frank.sign_up("frank")
    statuses = []
    for _ in range(RUN_BURST):
        st, b, _ = frank.call("POST", "/api/runs", quick)
        statuses.append(st)
        if st == 202:
            wait_run(frank, b["id"], 60)
    st, b, r = frank.call("POST", "/api/runs", quick)
    rep.check("the run bucket: %d runs, then 429 rate_limited with Retry-After" % RUN_BURST,
              statuses == [202] * RUN_BURST and st == 429 and
              b["error"]["code"] == "rate_limited" and int(r.getheader("Retry-After") or 0) >= 1,
              "%s then %d %s" % (statuses, st, b))
    # a user's bucket is their own
    st, b, _ = erin.call("POST", "/api/runs", quick)
    rep.check("another user still runs", st == 202, "%d %s" % (st, b))
    if st == 202:
        wait_run(erin, b["id"], 60)


def unzip(data, dest):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = z.namelist()
        z.extractall(dest)
    return names


def archives(srv, binary, tmp, rep):
    anon = srv.client()
    st, b, _ = anon.call("GET", "/api/problems/no-such-problem/samples")
    rep.check("samples of an unknown problem: 404 not_found",
              st == 404 and b["error"]["code"] == "not_found", "%d %s" % (st, b))
    st, b, _ = anon.call("GET", "/api/problems/Bad_Slug/samples")
    rep.check("samples with a bad slug: 400 invalid_slug",
              st == 400 and b["error"]["code"] == "invalid_slug", "%d %s" % (st, b))

    def fetch(slug):
        r, raw = anon.exchange("GET", "/api/problems/%s/samples" % slug)
        return r.status, r.getheader("Content-Type"), r.getheader("Content-Disposition"), raw

    leaks = []
    t0 = time.time()
    slugs = sorted(os.listdir(os.path.join(ROOT, "problems")))
    for slug in slugs:
        pj = problem_json(slug)
        samples = {t["name"] for t in pj["tests"] if t["kind"] == "sample"}
        hidden = {t["name"] for t in pj["tests"] if t["kind"] != "sample"}
        st, ctype, disp, data = fetch(slug)
        if st != 200:
            leaks.append("%s: status %d" % (slug, st))
            continue
        dest = os.path.join(tmp, "kit", slug)
        names = unzip(data, dest)
        top = "%s-samples/" % slug
        cases = {n.split("/")[2] for n in names if n.startswith(top + "cases/")}
        if cases != samples or not all(n.startswith(top) for n in names):
            leaks.append("%s: case directories %s, samples %s" % (slug, sorted(cases),
                                                                   sorted(samples)))
        # a hidden name never appears as a path part or a quoted string
        text = "\n".join(open(os.path.join(dest, n), errors="replace").read()
                         for n in names if not n.endswith(".npy"))
        for h in hidden:
            if any(h in n.split("/") for n in names) or re.search(r'"%s"' % re.escape(h), text):
                leaks.append("%s: hidden test %s appears" % (slug, h))
        if slug == slugs[0]:
            rep.check("the archive is a zip attachment, anonymous",
                      ctype == "application/zip" and
                      disp == 'attachment; filename="%s-samples.zip"' % slug, "%s %s" % (ctype, disp))
    print("# %d sample archives fetched and unpacked in %.1f s" % (len(slugs), time.time() - t0))
    rep.check("every problem's archive: the sample tests' cases and nothing hidden",
              not leaks, "; ".join(leaks[:5]))
    st, _, _, again = fetch("mha-cross")
    st1, _, _, first = fetch("mha-cross")
    rep.check("the same archive twice: the same bytes", st == st1 == 200 and again == first)

    # the archive's .npy files are export's bytes
    exp = os.path.join(tmp, "export")
    subprocess.run([binary, "export", "--problem", "mha-cross", "--test", "sample-no-mask",
                    "--dir", exp, "--problems", os.path.join(ROOT, "problems"),
                    "--reference", os.path.join(ROOT, "reference"),
                    "--data", os.path.join(tmp, "export-data")],
                   check=True, stdout=subprocess.DEVNULL, timeout=120)
    case = os.path.join(tmp, "kit", "mha-cross", "mha-cross-samples", "cases", "sample-no-mask")
    same = all(open(os.path.join(exp, sub, f), "rb").read() ==
               open(os.path.join(case, sub, f), "rb").read()
               for sub in ("inputs", "expected") for f in os.listdir(os.path.join(exp, sub)))
    rep.check("the archive's .npy files are attnjudge export's bytes (no mask file: NULL)",
              same and not os.path.exists(os.path.join(case, "inputs", "mask.npy")) and
              sorted(os.listdir(os.path.join(exp, "inputs"))) ==
              sorted(os.listdir(os.path.join(case, "inputs"))))

    # every problem's kit with one correct solution; three also with a wrong one
    plan = {slug: [(good, 0), (bad, 1)] for slug, good, bad in ARCHIVE_CASES}
    for slug in slugs:
        if slug not in plan:
            accepted = sorted(f for f in os.listdir(os.path.join(ROOT, "tests", "submissions", slug,
                                                                 "accepted"))
                              if "avx" not in f)  # AVX2 needs the CPU: not what this tests
            plan[slug] = [("accepted/" + accepted[0], 0)]
    for slug, todo in plan.items():
        kit = os.path.join(tmp, "kit", slug, "%s-samples" % slug)
        n_samples = sum(t["kind"] == "sample" for t in problem_json(slug)["tests"])
        for rel, want in todo:
            shutil.copy(os.path.join(ROOT, "tests", "submissions", slug, rel),
                        os.path.join(kit, "solution.c"))
            build = subprocess.run(["make", "-s", "-B", "check"], cwd=kit, capture_output=True,
                                   text=True, timeout=120)
            if not rep.check("%s: main.c builds with %s" % (slug, rel), build.returncode == 0,
                             build.stderr[-500:]):
                continue
            run = subprocess.run(["./check"], cwd=kit, capture_output=True, text=True, timeout=60)
            out = run.stdout
            if want == 0:
                rep.check("%s: %s matches on every sample case (exit 0)" % (slug, rel),
                          run.returncode == 0 and
                          "%d of %d sample cases match" % (n_samples, n_samples) in out and
                          "MISMATCH" not in out, out[-500:] + run.stderr[-300:])
                got = os.path.join(kit, "cases", sorted(os.listdir(os.path.join(kit, "cases")))[0],
                                   "got")
                rep.check("%s: the outputs are written as .npy" % slug,
                          os.path.isdir(got) and all(f.endswith(".npy") for f in os.listdir(got)) and
                          os.listdir(got))
            else:
                rep.check("%s: %s reports a mismatch (exit 1)" % (slug, rel),
                          run.returncode == 1 and "MISMATCH" in out, out[-500:] + run.stderr[-300:])


if __name__ == "__main__":
    sys.exit(main())
