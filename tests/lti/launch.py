"""The LTI 1.3 launch and deep linking against the test platform
(platform.py), without a browser (tests/lti/browser.mjs has the iframe):

- the login redirect: every parameter of the authentication request as
  the platform checks it, redirect_uri exactly <public_url>/lti/launch,
  lti_message_hint passed back unchanged, the state cookie's attributes;
- a student's and an instructor's launch: linked by (issuer, sub), names
  kept, roles mapped, the session cookie's attributes, the page the link
  names, the link's AGS and NRPS endpoints recorded;
- every negative test of docs/lti.md's table, one each, by its exact
  status and error code;
- deep linking: the picker, the signed response verified by the platform
  against the tool's JWKS, its line item; the deep-linked link launched;
- framing: the web UI's pages may be framed by the platform's origin only;
- no token, state or key in the server's logs.

    /usr/bin/python3 tests/lti/launch.py BUILD/attnjudge
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
# this directory last: its platform.py must not hide the standard library's
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE] + [HERE]
from ltilib import P, Browser, LtiServer, error_code  # noqa: E402
from serverlib import Client, Report  # noqa: E402

SLUG = "softmax-stable"


def instructor_client(srv):
    c = Client("127.0.0.1", srv.port)
    c.sign_in("prof", "prof-password")
    return c


def make_assignment(srv, slug="hw1"):
    c = instructor_client(srv)
    st, body, _ = c.call("POST", "/api/assignments", {
        "slug": slug, "title": "Homework 1", "problems": [SLUG, "layernorm"],
        "opens_at": "2020-01-01T00:00:00Z", "due_at": "2099-01-01T00:00:00Z",
        "late_policy": "none"})
    c.close()
    return st


def login_redirect(rep, srv, plat):
    b = Browser(srv)
    r, loc, q = b.login(plat, login_hint="hint-42", message_hint="opaque msg+hint/=")
    if r.status != 302:
        print(b.last_body[:300])
    rep.check("login: 302 to the platform's auth URL", r.status == 302 and
              loc.startswith(plat.url("/auth?")), "%d %s" % (r.status, loc[:120]))
    rep.check("login: redirect_uri is exactly <public_url>/lti/launch",
              q.get("redirect_uri") == srv.public_url + "/lti/launch", str(q))
    rep.check("login: lti_message_hint passed back unchanged",
              q.get("lti_message_hint") == "opaque msg+hint/=", str(q))
    rep.check("login: the request is what the platform requires",
              plat.check_auth_request(q) == [], str(plat.check_auth_request(q)))
    line = [x for x in b.set_cookie_lines if x.startswith("attnjudge_lti_")]
    rep.check("login: state cookie HttpOnly, SameSite=None, Secure, for /lti/launch",
              len(line) == 1 and all(a in line[0] for a in
                                     ("HttpOnly", "SameSite=None", "Secure",
                                      "Path=/lti/launch")), str(line))
    # an initiation for a page elsewhere is refused (no open redirect)
    r, _, _ = b.login(plat, target="http://evil.example/")
    rep.check("login: target_link_uri of another site refused 400", r.status == 400)
    r, _, _ = b.login(plat, extra={"iss": "http://unknown.example"})
    rep.check("login: unknown issuer refused 400", r.status == 400)
    # POST initiation works too
    r, body = b.request("POST", "/lti/login", {
        "iss": plat.issuer, "login_hint": "h", "target_link_uri": srv.public_url + "/",
        "client_id": plat.client_id}, {"Origin": plat.issuer})
    rep.check("login: POST initiation from the platform's site: 302", r.status == 302,
              body[:200].decode())


def student_launch(rep, srv, plat, instructor_b):
    b = Browser(srv)
    r, body = b.full_launch(plat, lambda n: plat.id_token(plat.claims(
        n, sub="stu-1", custom={"problem": SLUG}, link="link-p")))
    rep.check("student launch: 303 to the problem page",
              r.status == 303 and r.headers.get("Location") ==
              srv.public_url + "/?launched=1#/problem/" + SLUG, "%d %s %s" % (
                  r.status, r.headers.get("Location"), body[:200]))
    sess = [x for x in b.set_cookie_lines if x.startswith("attnjudge_session=")]
    rep.check("student launch: session cookie HttpOnly; SameSite=None; Secure",
              len(sess) == 1 and all(a in sess[0] for a in ("HttpOnly", "SameSite=None",
                                                               "Secure")), str(sess))
    st, me = b.api("GET", "/api/me")
    rep.check("student launch: signed in as a student with name and e-mail",
              st == 200 and me["role"] == "student" and me.get("display_name") == "User stu-1"
              and me.get("student_id") == "stu-1@example.org", json.dumps(me))
    st, _ = b.api("GET", "/api/users")
    rep.check("student launch: no instructor rights (GET /api/users 403)", st == 403)
    # the same (issuer, sub) again: the same account
    b2 = Browser(srv)
    r, _ = b2.full_launch(plat, lambda n: plat.id_token(plat.claims(
        n, sub="stu-1", custom={"problem": SLUG}, link="link-p")))
    st, me2 = b2.api("GET", "/api/me")
    rep.check("student launch again: the same account", st == 200 and me2["id"] == me["id"])
    rows = srv.db("SELECT kind, slug, ags_lineitems_url, ags_lineitem_url, ags_scopes, nrps_url"
                  " FROM lti_links WHERE resource_link_id = 'link-p'")
    rep.check("student launch: the link recorded once with its AGS and NRPS endpoints",
              len(rows) == 1 and rows[0][0] == "problem" and rows[0][1] == SLUG and
              rows[0][2].endswith("/lineitems") and rows[0][3].endswith("/link-p") and
              "scope/score" in rows[0][4] and rows[0][5].endswith("/memberships"), str(rows))
    # a learner who is an instructor elsewhere in the institution: still a student
    b3 = Browser(srv)
    b3.full_launch(plat, lambda n: plat.id_token(plat.claims(
        n, sub="stu-2", roles=[P.ROLE_LEARNER, P.ROLE_INST_INSTRUCTOR])))
    st, me3 = b3.api("GET", "/api/me")
    rep.check("student launch: an institution Instructor role grants nothing",
              st == 200 and me3["role"] == "student", json.dumps(me3))
    return me


def instructor_launch(rep, srv, plat):
    b = Browser(srv)
    r, body = b.full_launch(plat, lambda n: plat.id_token(plat.claims(
        n, sub="teacher-1", roles=[P.ROLE_INSTRUCTOR], custom={"assignment": "hw1"},
        link="link-a")))
    rep.check("instructor launch: 303 to the assignment page",
              r.status == 303 and r.headers.get("Location") ==
              srv.public_url + "/?launched=1#/assignments/hw1", "%d %s" % (r.status, body[:200]))
    st, me = b.api("GET", "/api/me")
    rep.check("instructor launch: an instructor", st == 200 and me["role"] == "instructor")
    st, _ = b.api("GET", "/api/users")
    rep.check("instructor launch: instructor rights (GET /api/users 200)", st == 200)
    b2 = Browser(srv)
    b2.full_launch(plat, lambda n: plat.id_token(plat.claims(
        n, sub="ta-1", roles=[P.ROLE_TA], target=srv.public_url + "/#/problem/" + SLUG,
        link="link-t")))
    st, me = b2.api("GET", "/api/me")
    rep.check("TeachingAssistant launch: an instructor", st == 200 and me["role"] == "instructor")
    rows = srv.db("SELECT kind, slug FROM lti_links WHERE resource_link_id = 'link-t'")
    rep.check("target_link_uri names the problem when no custom parameter does",
              rows == [("problem", SLUG)], str(rows))
    return b


def negatives(rep, srv, plat, other):
    """One refusal per check (docs/lti.md's table)."""
    def refused(name, status, code, token_for, **kw):
        b = Browser(srv)
        r, body = b.full_launch(plat, token_for, **kw)
        got = (r.status, error_code(body))
        rep.check("refused: %s -> %d %s" % (name, status, code), got == (status, code),
                  "%s %s" % (got, body[:200]))
        return b

    def claims(n, **kw):
        return plat.claims(n, sub="neg-user", **kw)

    intruder = plat.foreign_key()
    refused("bad signature", 401, "lti_bad_token",
            lambda n: plat.id_token(claims(n), key=intruder))
    refused("wrong aud", 401, "lti_unknown_platform",
            lambda n: plat.id_token(claims(n, aud="someone-else")))
    refused("wrong aud (array, azp ours)", 401, "lti_bad_token",
            lambda n: plat.id_token(claims(n, aud=["someone-else"], azp=plat.client_id)))
    refused("several aud without azp", 401, "lti_bad_token",
            lambda n: plat.id_token(claims(n, aud=[plat.client_id, "x"])))
    now = int(time.time())
    refused("expired token", 401, "lti_bad_token",
            lambda n: plat.id_token(claims(n, exp=now - 600, iat=now - 900)))
    refused("alg none", 401, "lti_bad_token", lambda n: plat.id_token(claims(n), alg="none"))
    refused("HS256 keyed with the public key", 401, "lti_bad_token",
            lambda n: plat.id_token(claims(n), alg="HS256"))
    refused("unknown deployment", 403, "lti_unknown_deployment",
            lambda n: plat.id_token(claims(n, deployment="deploy-unknown")))
    refused("nonce not issued for this login", 401, "lti_bad_nonce",
            lambda n: plat.id_token(claims("made-up-nonce")))
    refused("wrong LTI version", 401, "lti_bad_token",
            lambda n: plat.id_token(claims(n, **{P.LTI + "version": "1.1"})))
    refused("unknown message type", 401, "lti_bad_token",
            lambda n: plat.id_token(claims(n, **{P.LTI + "message_type": "LtiSubmissionReview"})))
    # missing and wrong state
    b = Browser(srv)
    _, _, q = b.login(plat)
    r, body = b.launch(plat.id_token(claims(q["nonce"])), None)
    rep.check("refused: missing state -> 401 lti_bad_state",
              (r.status, error_code(body)) == (401, "lti_bad_state"), body[:200])
    r, body = Browser(srv).launch(plat.id_token(claims(q["nonce"])), q["state"])
    rep.check("refused: state without this browser's cookie -> 401 lti_bad_state",
              (r.status, error_code(body)) == (401, "lti_bad_state"), body[:200])
    _, _, q2 = b.login(plat)
    r, body = b.launch(plat.id_token(claims(q["nonce"])), q2["state"])
    rep.check("refused: another login's state -> 401 lti_bad_nonce",
              (r.status, error_code(body)) == (401, "lti_bad_nonce"), body[:200])
    # replayed: a launch that worked, posted again as it was
    b = Browser(srv)
    _, _, q = b.login(plat)
    tok = plat.id_token(claims(q["nonce"]))
    first, _ = b.launch(tok, q["state"])
    cookie = dict(b.cookies)
    b.cookies["attnjudge_lti_" + q["state"][:16]] = q["state"]  # the attacker keeps the cookie
    r, body = b.launch(tok, q["state"])
    rep.check("refused: replayed nonce -> 401 lti_replay",
              first.status == 303 and (r.status, error_code(body)) == (401, "lti_replay"),
              "%d %s %s" % (first.status, body[:200], cookie.keys()))
    # a course this platform does not own: course-1 belongs to plat; another
    # registered platform's student names it
    b = Browser(srv)
    r, body = b.full_launch(other, lambda n: other.id_token(other.claims(
        n, sub="outsider", context="course-1")))
    rep.check("refused: a course the platform does not own -> 403 lti_course_not_owned",
              (r.status, error_code(body)) == (403, "lti_course_not_owned"), body[:200])
    # the same course through another deployment of its own platform
    refused("the course through another deployment", 403, "lti_course_not_owned",
            lambda n: plat.id_token(claims(n, deployment="deploy-2")),
            extra={"lti_deployment_id": "deploy-2"})
    # a student deep-linking
    refused("a student's deep linking request", 403, "forbidden",
            lambda n: plat.id_token(claims(n, message="LtiDeepLinkingRequest")))


def rotation(rep, srv, plat):
    """The platform rotates its key: the tool refetches the JWKS for the
    unknown kid and the launch succeeds."""
    time.sleep(1.2)  # past the tool's least time between two fetches
    plat.rotate(keep_old=False)
    b = Browser(srv)
    r, body = b.full_launch(plat, lambda n: plat.id_token(plat.claims(n, sub="after-rotation")))
    rep.check("kid rotated at the platform: the tool refetches and the launch succeeds",
              r.status == 303, "%d %s" % (r.status, body[:200]))


def deep_linking(rep, srv, plat):
    b = Browser(srv)
    data = None

    def token(n):
        nonlocal data
        c = plat.claims(n, sub="teacher-1", roles=[P.ROLE_INSTRUCTOR],
                        message="LtiDeepLinkingRequest")
        data = c[P.DL + "deep_linking_settings"]["data"]
        return plat.id_token(c)

    r, body = b.full_launch(plat, token)
    loc = r.headers.get("Location") or ""
    rep.check("deep linking: 303 to the picker", r.status == 303 and
              loc.startswith(srv.public_url + "/lti/deep-link?ctx="), "%d %s" % (r.status, loc))
    path = urllib.parse.urlsplit(loc)
    r, page = b.request("GET", path.path + "?" + path.query)
    page = page.decode()
    rep.check("deep linking: the picker lists the assignment and the problems",
              r.status == 200 and 'data-slug="hw1"' in page and 'data-slug="%s"' % SLUG in page,
              page[:300])
    csp = r.headers.get("Content-Security-Policy") or ""
    rep.check("deep linking: the picker may be framed by the platform only",
              ("frame-ancestors " + plat.issuer) in csp and "X-Frame-Options" not in r.headers,
              csp)
    ctx = urllib.parse.parse_qs(path.query)["ctx"][0]
    r, body = b.request("POST", "/lti/deep-link", {"ctx": ctx, "kind": "assignment",
                                                   "slug": "hw1"}, {"Origin": srv.public_url})
    text = body.decode()
    m = re.search(r'action="([^"]+)"', text)
    jwt_m = re.search(r'name="JWT" value="([^"]+)"', text)
    rep.check("deep linking: the response page posts a JWT to the return URL",
              r.status == 200 and m and m.group(1) == plat.url("/deep-link-return") and jwt_m,
              text[:300])
    csp = r.headers.get("Content-Security-Policy") or ""
    rep.check("deep linking: its one inline script allowed by hash only",
              "script-src 'self' 'sha256-" in csp, csp)
    claims = plat.verify_tool_jwt(jwt_m.group(1)) if jwt_m else {}
    item = (claims.get(P.DL + "content_items") or [{}])[0]
    rep.check("deep linking: signed by the tool's JWKS key, for the platform",
              claims.get("iss") == plat.client_id and claims.get("aud") == plat.issuer and
              claims.get(P.LTI + "message_type") == "LtiDeepLinkingResponse" and
              claims.get(P.LTI + "version") == "1.3.0" and
              claims.get(P.LTI + "deployment_id") == plat.deployments[0] and
              claims.get(P.DL + "data") == data, json.dumps(claims)[:400])
    rep.check("deep linking: an ltiResourceLink to the assignment with its line item",
              item.get("type") == "ltiResourceLink" and item.get("custom") == {"assignment": "hw1"}
              and item.get("url") == srv.public_url + "/lti/launch" and
              item.get("lineItem", {}).get("resourceId") == "hw1" and
              item.get("lineItem", {}).get("scoreMaximum") == 200, json.dumps(item))
    r, body = b.request("POST", "/lti/deep-link", {"ctx": ctx, "kind": "problem", "slug": SLUG})
    jwt_m = re.search(r'name="JWT" value="([^"]+)"', body.decode())
    item = (plat.verify_tool_jwt(jwt_m.group(1)).get(P.DL + "content_items") or [{}])[0] \
        if jwt_m else {}
    rep.check("deep linking: a problem is practice: no line item",
              item.get("custom") == {"problem": SLUG} and "lineItem" not in item, json.dumps(item))
    forged = ctx[:-3] + ("AAA" if not ctx.endswith("AAA") else "BBB")
    r, body = b.request("POST", "/lti/deep-link", {"ctx": forged, "kind": "problem",
                                                   "slug": SLUG})
    rep.check("deep linking: a forged context -> 403 lti_bad_context",
              (r.status, error_code(body)) == (403, "lti_bad_context"), body[:200])
    # the platform posts the JWT back: verified and recorded
    # (what the browser's self-posting form does)
    req = urllib.request.Request(plat.url("/deep-link-return"),
                                 data=urllib.parse.urlencode({"JWT": jwt_m.group(1)}).encode()
                                 if jwt_m else b"", method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        resp.read()
    rep.check("deep linking: the platform verified and recorded the response",
              len(plat.deep_links) == 1 and not plat.deep_link_errors,
              str(plat.deep_link_errors))


def framing(rep, srv, plat):
    b = Browser(srv)
    r, _ = b.request("GET", "/")
    csp = r.headers.get("Content-Security-Policy") or ""
    rep.check("a page may be framed by the registered platform's origin only",
              re.search(r"frame-ancestors [^;]*" + re.escape(plat.issuer), csp) is not None and
              "X-Frame-Options" not in r.headers, csp)
    r, _ = b.request("GET", "/api/vocabulary")
    rep.check("API answers stay unframeable",
              "frame-ancestors 'none'" in (r.headers.get("Content-Security-Policy") or "") and
              r.headers.get("X-Frame-Options") == "DENY")
    r, body = b.request("GET", "/lti/jwks")
    keys = json.loads(body).get("keys", [])
    rep.check("/lti/jwks: RS256 public keys only",
              r.status == 200 and keys and all(k.get("kty") == "RSA" and "d" not in k and
                                                "p" not in k and k.get("alg") == "RS256"
                                                for k in keys), body[:300])


def platforms_api(rep, srv, plat):
    """The instructors' API for platforms: the same checks as the command
    line's, students refused."""
    c = instructor_client(srv)
    st, body, _ = c.call("GET", "/api/lti/platforms")
    issuers = [p["issuer"] for p in (body or {}).get("platforms", [])]
    rep.check("API: GET /api/lti/platforms lists the registered platforms and the tool's URLs",
              st == 200 and plat.issuer in issuers and
              body["tool"]["login_url"] == srv.public_url + "/lti/login" and
              body["tool"]["redirect_uri"] == srv.public_url + "/lti/launch", json.dumps(body)[:300])
    new = {"issuer": "https://moodle.example.edu", "client_id": "m-1", "deployment_ids": ["1"],
           "auth_url": "https://moodle.example.edu/mod/lti/auth.php",
           "token_url": "https://moodle.example.edu/mod/lti/token.php",
           "jwks_url": "https://moodle.example.edu/mod/lti/certs.php"}
    st, body, _ = c.call("POST", "/api/lti/platforms", new)
    pid = (body or {}).get("id")
    rep.check("API: POST registers with the default frame origin: 201",
              st == 201 and body["frame_origins"] == ["https://moodle.example.edu"] and
              body["deployment_ids"] == ["1"], json.dumps(body))
    st, body, _ = c.call("POST", "/api/lti/platforms", new)
    rep.check("API: the same issuer and client again: 409 platform_exists",
              st == 409 and body["error"]["code"] == "platform_exists")
    st, body, _ = c.call("POST", "/api/lti/platforms", dict(new, client_id="m-2",
                                                             jwks_url="javascript:alert(1)"))
    rep.check("API: a URL that is not http(s): 400 invalid_request",
              st == 400 and body["error"]["code"] == "invalid_request", json.dumps(body))
    st, body, _ = c.call("POST", "/api/lti/platforms", dict(new, client_id="m-3",
                                                             frame_origins=["https://a.example/x"]))
    rep.check("API: a frame origin with a path: 400 invalid_request", st == 400)
    st, _, _ = c.call("DELETE", "/api/lti/platforms/%s" % pid)
    st2, _, _ = c.call("DELETE", "/api/lti/platforms/%s" % pid)
    rep.check("API: DELETE 204, then 404", (st, st2) == (204, 404))
    c.close()
    s = Client("127.0.0.1", srv.port)
    s.sign_up("plainstudent")
    st, _, _ = s.call("GET", "/api/lti/platforms")
    rep.check("API: a student may not list platforms: 403", st == 403)
    s.close()


def no_secrets_in_logs(rep, srv, secrets):
    text = open(srv.err_path).read() + open(srv.conf["access_log"]).read()
    leaked = [s[:12] for s in secrets if s and s in text]
    rep.check("no token, state or key in the server's logs",
              not leaked and "PRIVATE" not in text and '"d":' not in text, str(leaked))


def run(binary):
    rep = Report()
    tmp = tempfile.mkdtemp(prefix="attnjudge-lti.")
    os.chmod(tmp, 0o711)
    plat = P.Platform(deployments=("deploy-1", "deploy-2")).start()
    other = P.Platform(client_id="other-client").start()
    srv = LtiServer(binary, tmp, "lti")
    secrets = []
    try:
        srv.add_user("prof", "prof-password", "instructor")
        srv.register(plat)
        srv.register(other)
        srv.start()
        make_assignment(srv)
        login_redirect(rep, srv, plat)
        ib = instructor_launch(rep, srv, plat)  # binds course-1 to plat, deploy-1
        student_launch(rep, srv, plat, ib)
        negatives(rep, srv, plat, other)
        rotation(rep, srv, plat)
        deep_linking(rep, srv, plat)
        framing(rep, srv, plat)
        platforms_api(rep, srv, plat)
        for b in (ib,):
            secrets += list(b.cookies.values())
        for q in plat.auth_requests:
            secrets += [q.get("state"), q.get("nonce")]
        no_secrets_in_logs(rep, srv, secrets)
    except Exception as e:  # noqa: BLE001 - a crash of the scenario is one failure
        traceback.print_exc()
        rep.check("lti launch scenario ran to the end", False, repr(e))
    finally:
        srv.stop()
        plat.stop()
        other.stop()
        if rep.failed:
            print("--- server log:\n" + srv.log_tail(30))
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()


if __name__ == "__main__":
    sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else "build/attnjudge"))
