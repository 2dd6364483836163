#!/usr/bin/env python3
"""The HTTP half of tests/deploy/container.sh: talks to the containerised
`attnjudge serve` published on 127.0.0.1:PORT and prints one "PASS ..." or
"FAIL ..." line per check (container.sh counts them).

    tests/deploy/container_api.py PORT ROOT [JUDGE_HOSTS]

What is checked, through the API only (docs/api.md):
  - GET /healthz answers 200 with "status" and "sandbox" both "ok" (the
    sandbox's start-up self-test passed inside the container), waiting up
    to HEALTH_WAIT seconds for the first start; with JUDGE_HOSTS (a front
    end with workers = 0, deploy/compose.yaml), that many judge hosts are
    alive, else every configured worker of the server runs;
  - a student registers (POST /api/users) and signs in (POST /api/sessions);
  - tests/submissions/softmax-stable/accepted/plain_float.c is accepted and
    .../wrong_answer/no_max_subtraction.c gets wrong_answer;
  - each attack of ATTACKS (tests/attacks/) gets a verdict its header's
    `expect:` allows (the host-side tests/run-attacks.py reads the same
    line), and never internal_error.

The server judges every test, not only the samples as run-attacks.py does;
an attack ends at its first test, a sample, so the verdict is the same.
"""
import http.client
import json
import os
import secrets
import sys
import time

PORT, ROOT = int(sys.argv[1]), sys.argv[2]
JUDGE_HOSTS = int(sys.argv[3]) if len(sys.argv) > 3 else None
HEALTH_WAIT = 240       # seconds: the first start measures the machine
VERDICT_WAIT = 300      # seconds per submission
# one attack per wall the sandbox builds: processes, network, exec,
# namespaces, signals, files seen by the compiler, files at run time, CPU,
# memory
ATTACKS = ["fork_bomb", "socket_connect", "execve_sh", "clone3_raw", "unshare_user",
           "kill_init", "create_file_tmp", "include_etc_shadow", "infinite_loop", "bss_huge"]

passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("PASS " + name, flush=True)
    else:
        failed += 1
        print("FAIL " + name + (": " + detail if detail else ""), flush=True)
    return cond


def request(method, path, body=None, token=None):
    """(status, decoded JSON or None)"""
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = "Bearer " + token
    try:
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        raw = resp.read()
        try:
            return resp.status, json.loads(raw) if raw else None
        except ValueError:
            return resp.status, None
    finally:
        conn.close()


def wait_health():
    deadline = time.time() + HEALTH_WAIT
    last = "no answer"
    while time.time() < deadline:
        try:
            status, doc = request("GET", "/healthz")
            last = "%d %s" % (status, json.dumps(doc))
            if status == 200 and doc and doc.get("status") == "ok":
                return status, doc
        except OSError as e:
            last = str(e)
        time.sleep(1)
    return None, last


def expected_verdicts(path):
    """The `expect:` line of an attack's header: a set of verdicts, or
    "!accepted"."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f.read(2000).splitlines():
            if "expect:" in line:
                return line.split("expect:", 1)[1].strip()
    return None


def judge(token, problem, path):
    """The submission's final document, or an error string."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    deadline = time.time() + VERDICT_WAIT
    while True:
        status, doc = request("POST", "/api/submissions", {"problem": problem, "source": source},
                              token)
        if status == 202:
            break
        # user_queue_max or the submit bucket: wait as told
        if status in (429, 503) and time.time() < deadline:
            time.sleep(2)
            continue
        return "POST /api/submissions: %d %s" % (status, json.dumps(doc))
    sid = doc["id"]
    while time.time() < deadline:
        status, doc = request("GET", "/api/submissions/%d" % sid, token=token)
        if status != 200:
            return "GET /api/submissions/%d: %d" % (sid, status)
        if doc.get("status") == "done":
            return doc
        time.sleep(1)
    return "submission %d: no verdict within %d s" % (sid, VERDICT_WAIT)


def first_message(doc):
    for t in doc.get("tests") or []:
        if t.get("verdict") not in ("accepted", "not_run") and t.get("message"):
            return t["message"][:120]
    return (doc.get("compile_log") or "")[:120].replace("\n", " ")


def main():
    status, doc = wait_health()
    if not check("healthz answers 200, status ok", status == 200, str(doc)):
        return
    check("healthz: the sandbox self-test passed in the container",
          doc.get("sandbox") == "ok" and doc.get("database") == "ok", json.dumps(doc))
    if JUDGE_HOSTS is None:
        check("healthz: every judging worker runs (%s)" % doc.get("workers_running"),
              doc.get("workers_running", 0) >= 1
              and doc.get("workers_running") == doc.get("workers"), json.dumps(doc))
    else:
        # the judge hosts may still be starting: their heartbeats come in
        deadline = time.time() + HEALTH_WAIT
        while len(doc.get("judge_hosts") or []) < JUDGE_HOSTS and time.time() < deadline:
            time.sleep(1)
            doc = request("GET", "/healthz")[1] or {}
        check("healthz: %d judge hosts alive" % JUDGE_HOSTS,
              len(doc.get("judge_hosts") or []) == JUDGE_HOSTS, json.dumps(doc))

    user = "student" + secrets.token_hex(4)
    password = secrets.token_hex(12)
    status, doc = request("POST", "/api/users", {"username": user, "password": password})
    check("POST /api/users creates a student", status == 201, "%d %s" % (status, doc))
    status, doc = request("POST", "/api/sessions", {"username": user, "password": password})
    if not check("POST /api/sessions signs in", status == 200 and doc and "token" in doc,
                 "%d %s" % (status, doc)):
        return
    token = doc["token"]

    subs = os.path.join(ROOT, "tests", "submissions", "softmax-stable")
    for want, rel in (("accepted", "accepted/plain_float.c"),
                      ("wrong_answer", "wrong_answer/no_max_subtraction.c")):
        t0 = time.time()
        doc = judge(token, "softmax-stable", os.path.join(subs, rel))
        if isinstance(doc, str):
            check("softmax-stable %s: %s" % (rel, want), False, doc)
            continue
        check("softmax-stable %s: %s (%.1f s)" % (rel, doc.get("verdict"), time.time() - t0),
              doc.get("verdict") == want,
              "verdict %s, %s" % (doc.get("verdict"), first_message(doc)))

    for name in ATTACKS:
        path = os.path.join(ROOT, "tests", "attacks", name + ".c")
        expect = expected_verdicts(path)
        problem = "mha-fused-qkv"
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f.read(2000).splitlines():
                if "problem:" in line:
                    problem = line.split("problem:", 1)[1].strip()
        t0 = time.time()
        doc = judge(token, problem, path)
        if isinstance(doc, str):
            check("attack %s: %s" % (name, expect), False, doc)
            continue
        verdict = doc.get("verdict")
        if expect == "!accepted":
            ok = verdict not in ("accepted", "internal_error")
        else:
            ok = verdict in expect.split("|") and verdict != "internal_error"
        check("attack %s: %s (expect %s; %.1f s) %s" % (name, verdict, expect, time.time() - t0,
                                                        first_message(doc)), ok)

    status, doc = request("GET", "/healthz")
    check("healthz still 200 after the attacks", status == 200 and doc.get("sandbox") == "ok",
          "%d %s" % (status, json.dumps(doc)))


if __name__ == "__main__":
    main()
    sys.exit(0 if failed == 0 else 1)
