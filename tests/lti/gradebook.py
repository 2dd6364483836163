"""The LTI end-to-end scenario of grades (docs/lti.md, "Grades back"),
through a real server, the test platform (platform.py) and its services
(lms_services.py), on SQLite, or on PostgreSQL when ATTNJUDGE_TEST_PG_URL
is set (tests/pg):

- an instructor deep-links an assignment: the platform verifies the
  signed response and makes the resource link and its line item from it;
- three students launch that link (the platform's claims name the line
  item, the line-items service and the roster service) and submit: two
  before the due date, one after it (late policy 25 % per started day);
- the LMS's gradebook receives the assignment grades the tool shows,
  late penalty included, on the deep-linked line item (no other made);
- the LMS goes down (503, then 429) while a rejudge changes two verdicts,
  and the server is killed (kill -9) in the middle of it, with judgements
  queued or running and a score waiting: nothing reaches the LMS
  meanwhile, nothing is lost, nothing arrives twice or out of order; once
  it is back the gradebook holds the rejudged grades;
- the token endpoint verified every client assertion against /lti/jwks.

It prints the gradebook before and after the rejudge.

    /usr/bin/python3 tests/lti/gradebook.py BUILD_DIR/attnjudge
"""
import json
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
# this directory after the standard library (Python put it first):
# platform.py must not shadow its module (ltilib loads it by file: L.P)
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE] + [HERE]
sys.path.insert(0, os.path.join(HERE, "..", "server"))
import lms_services as S  # noqa: E402
import ltilib as L  # noqa: E402
P = L.P
from serverlib import Client, Report, wait_until  # noqa: E402
from rejudge import GOOD, SLUG, breaking, problems_dir  # noqa: E402
from grades_outbox import new_version_rejudged  # noqa: E402
from assignments import iso  # noqa: E402

CONTEXT = "course-7"
LINK = "rl-hw-7"
DAY_MS = 24 * 3600 * 1000
STUDENTS = {"alice": "sub-alice", "bob": "sub-bob", "carol": "sub-carol"}


def now_ms():
    return int(time.time() * 1000)


def launch_claims(plat, lms, n, sub, roles, lineitem):
    """A resource link launch of the deep-linked assignment, with the
    services the platform offers for it."""
    return plat.claims(n, sub=sub, roles=roles, context=CONTEXT, link=LINK,
                       custom={"assignment": "hw"}, **{
                           P.AGS: {"scope": [S.SCOPE_LINEITEM, S.SCOPE_SCORE],
                                   "lineitems": lms.lineitems_url(CONTEXT),
                                   "lineitem": lineitem},
                           P.NRPS: {"context_memberships_url": lms.memberships_url(CONTEXT),
                                    "service_versions": ["2.0"]}})


def deep_link(rep, srv, plat, lms):
    """The instructor's deep link of assignment hw: the line item's URL."""
    b = L.Browser(srv)

    def token(n):
        return plat.id_token(plat.claims(n, sub="teacher", roles=[P.ROLE_INSTRUCTOR],
                                         context=CONTEXT, message="LtiDeepLinkingRequest"))

    r, _ = b.full_launch(plat, token)
    loc = urllib.parse.urlsplit(r.headers.get("Location") or "")
    ctx = urllib.parse.parse_qs(loc.query).get("ctx", [""])[0]
    r, body = b.request("POST", "/lti/deep-link", {"ctx": ctx, "kind": "assignment",
                                                   "slug": "hw"}, {"Origin": srv.public_url})
    jwt_m = re.search(r'name="JWT" value="([^"]+)"', body.decode())
    if not jwt_m:
        rep.check("deep link: the response", False, body[:300].decode())
        return None
    # the browser's self-posting form: the platform verifies and records it
    req = urllib.request.Request(plat.url("/deep-link-return"), method="POST",
                                 data=urllib.parse.urlencode({"JWT": jwt_m.group(1)}).encode())
    with urllib.request.urlopen(req, timeout=10) as resp:
        resp.read()
    claims = plat.deep_links[-1] if plat.deep_links else {}
    item = (claims.get(P.DL + "content_items") or [{}])[0]
    li = item.get("lineItem") or {}
    rep.check("deep link: the platform verified the response: the assignment, graded",
              item.get("custom") == {"assignment": "hw"} and li.get("resourceId") == "hw"
              and li.get("scoreMaximum") == 100 and not plat.deep_link_errors,
              json.dumps(item))
    # the LMS makes the resource link and its line item from the content item
    return lms.add_lineitem(CONTEXT, li.get("label", "hw"), li.get("scoreMaximum", 100),
                            li.get("resourceId"), LINK)


def student(srv, plat, lms, name, lineitem):
    """A student's launch: a browser signed in by the session cookie."""
    b = L.Browser(srv)
    r, _ = b.full_launch(plat, lambda n: plat.id_token(launch_claims(
        plat, lms, n, STUDENTS[name], [P.ROLE_LEARNER], lineitem)), login_hint="h-" + name)
    return b, r


def submit(b, src):
    r, data = b.request("POST", "/api/submissions", json.dumps(
        {"problem": SLUG, "source": src}).encode(), {"Content-Type": "application/json",
                                                     "Accept": "application/json"})
    return r.status, json.loads(data) if data else {}


def judged(b, sid, version):
    def done():
        st, body = b.api("GET", "/api/submissions/%d" % sid)
        return body if st == 200 and body["status"] == "done" \
            and body["problem_version"] == version else None
    return wait_until(done, 240, 0.3) or {}


def tool_grades(prof):
    """{sub: total} as the tool's assignment grades route shows them."""
    st, body, _ = prof.call("GET", "/api/assignments/hw/grades")
    subs = {u: s for u, s in STUDENTS.items()}
    out = {}
    for row in (body or {}).get("students", []):
        for name, sub in subs.items():
            if row.get("display_name") == "User %s" % sub:
                out[sub] = round(row["total"], 6)
    return out


def lms_book(lms):
    return {u: round(v, 6) for u, v in lms.gradebook().get("hw", {}).items()}


def settled(prof):
    st, body, _ = prof.call("GET", "/api/lti/outbox")
    c = (body or {}).get("counts", {})
    return st == 200 and c.get("pending") == 0 and c.get("sending") == 0


def run(binary):
    rep = Report()
    tmp = tempfile.mkdtemp(prefix="attnjudge-lti-gradebook.")
    os.chmod(tmp, 0o711)
    plat = P.Platform().start()
    lms = S.LmsServices(plat.issuer, None, plat.client_id)
    lms.mount_on(plat, [CONTEXT])
    # grades recomputed every 200 ms, tries at most 2 s apart: short waits
    srv = L.LtiServer(binary, tmp, "lti-gradebook", problems=problems_dir(tmp), workers=1,
                      conf={"registration": "closed", "lti_sync_ms": 200,
                            "lti_backoff_max_s": 2})
    lms.tool_jwks_url = srv.public_url + "/lti/jwks"
    plat.tool_jwks_url = lms.tool_jwks_url
    plat.tool_redirect_uri = srv.public_url + "/lti/launch"
    try:
        srv.add_user("prof", "prof-password", "instructor")
        srv.register(plat)
        srv.start()
        prof = Client("127.0.0.1", srv.port)
        prof.sign_in("prof", "prof-password")
        t = now_ms()
        due = t + 8000
        st, body, _ = prof.call("POST", "/api/assignments", {
            "slug": "hw", "title": "Homework", "problems": [SLUG], "opens_at": iso(t - DAY_MS),
            "due_at": iso(due),
            "late_policy": {"penalty_per_day": 0.25, "cutoff": iso(t + 2 * DAY_MS)}})
        rep.check("assignment created", st == 201, json.dumps(body))
        lineitem = deep_link(rep, srv, plat, lms)

        browsers, sids = {}, {}
        for name, src in [("alice", breaking("cols > 100")), ("carol", GOOD)]:
            browsers[name], r = student(srv, plat, lms, name, lineitem)
            st, body = submit(browsers[name], src)
            rep.check("%s launched (303) and submitted (202)" % name,
                      r.status == 303 and st == 202, "%d %d %s" % (r.status, st, body))
            sids[name] = body.get("id")
        wait_until(lambda: now_ms() > due + 300, 30, 0.1)
        browsers["bob"], r = student(srv, plat, lms, "bob", lineitem)
        st, body = submit(browsers["bob"], breaking("cols == 13"))
        rep.check("bob launched and submitted after the due date", r.status == 303 and st == 202)
        sids["bob"] = body.get("id")
        v1 = {n: judged(browsers[n], sids[n], 1) for n in sids}
        rep.check("version 1: alice accepted, bob wrong_answer, carol accepted",
                  [v1[n].get("verdict") for n in ("alice", "bob", "carol")]
                  == ["accepted", "wrong_answer", "accepted"])

        want = tool_grades(prof)
        ok = wait_until(lambda: settled(prof) and lms_book(lms) == want and len(want) == 3,
                        90, 0.3)
        before = lms_book(lms)
        print("gradebook before the rejudge (line item hw, scoreMaximum 100): %s"
              % json.dumps(before, sort_keys=True))
        rep.check("the LMS's gradebook is the tool's grades", ok, "%s vs %s" % (before, want))
        rep.check("late penalty: bob 75 %% of his score %s" % v1["bob"].get("score"),
                  abs(before.get("sub-bob", -1) - 0.75 * v1["bob"].get("score", 0)) < 1e-6)
        rep.check("scores went to the deep-linked line item; none created",
                  len(lms.lineitems) == 1, json.dumps(list(lms.lineitems.values())))

        lms.outage = 503
        received = len(lms.scores)
        new_version_rejudged(rep, prof)
        # the first rejudged grade meets the outage; then the server dies
        # (kill -9) with the rest of the rejudge queued or being judged
        rep.check("during the outage: a changed grade tried and refused (503)",
                  wait_until(lambda: lms.outage_hits >= 1, 240, 0.2))
        srv.proc.kill()
        srv.proc.wait(timeout=30)
        srv.stop()
        lms.outage = 429
        srv.start()
        prof = Client("127.0.0.1", srv.port)
        prof.sign_in("prof", "prof-password")
        v2 = {n: judged(browsers[n], sids[n], 2) for n in sids}
        rep.check("after the crash: version 2: alice wrong_answer, bob accepted, carol accepted",
                  [v2[n].get("verdict") for n in ("alice", "bob", "carol")]
                  == ["wrong_answer", "accepted", "accepted"])
        hits = lms.outage_hits
        wait_until(lambda: lms.outage_hits >= hits + 2, 30, 0.2)
        # a grade is "sending" while an attempt is on the wire, and back to
        # pending when it is refused: on a busy machine one look can catch
        # an attempt, so look until both wait between attempts
        outbox = {}

        def both_wait():
            st, body, _ = prof.call("GET", "/api/lti/outbox?state=pending")
            outbox.update(status=st, body=body)
            return st == 200 and len(body["deliveries"]) == 2 and all(
                d["last_error"] and ("429" in d["last_error"] or "503" in d["last_error"])
                for d in body["deliveries"])
        rep.check("after the restart, during the outage: the new grades wait, with the reason",
                  wait_until(both_wait, 30, 0.2), json.dumps(outbox)[:400])
        rep.check("nothing reached the LMS during the outage", len(lms.scores) == received)
        lms.outage = None
        want2 = tool_grades(prof)
        ok = wait_until(lambda: settled(prof) and lms_book(lms) == want2, 90, 0.3)
        after = lms_book(lms)
        print("gradebook after the rejudge: %s" % json.dumps(after, sort_keys=True))
        rep.check("after the outage: the gradebook holds the rejudged grades", ok,
                  "%s vs %s" % (after, want2))
        rep.check("bob: accepted, late: 75; alice lower than before; carol 100",
                  after.get("sub-bob") == 75 and after.get("sub-alice", 100) < 100
                  and after.get("sub-carol") == 100, json.dumps(after))
        rep.check("nothing delivered twice, nothing out of order",
                  lms.duplicates() == [] and lms.out_of_order == [])
        rep.check("every client assertion verified against /lti/jwks",
                  lms.token_requests >= 2 and lms.token_refusals == [],
                  json.dumps(lms.token_refusals))
        text = open(srv.err_path).read() + open(srv.conf["access_log"]).read()
        rep.check("no access token in the logs",
                  not any(tok in text for tok in lms.tokens) and "Bearer" not in text)
    except Exception as e:  # noqa: BLE001 - a crash of the scenario is one failure
        traceback.print_exc()
        rep.check("lti gradebook scenario ran to the end", False, repr(e))
    finally:
        srv.stop()
        plat.stop()
        if rep.failed:
            print("--- server log:\n" + srv.log_tail(30))
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()


if __name__ == "__main__":
    sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else "build/attnjudge"))
