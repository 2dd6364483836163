"""A test LTI 1.3 platform: the LMS side of attnjudge's LTI tests.

It follows the IMS specifications the tool is checked against (LTI 1.3
Core, LTI Security Framework 1.0, Deep Linking 2.0), with python3-jwcrypto
for every key and signature:

- its own RS256 key pairs, published at /jwks (rotate() adds a new one
  that signs from then on; the old one stays published unless dropped);
- the OIDC authorization endpoint /auth: it checks the tool's
  authentication request as a platform must (response_type, scope,
  response_mode, prompt, client_id, redirect_uri exactly as registered,
  login_hint, lti_message_hint passed back unchanged) and answers with
  the self-posting form of the id_token to the redirect_uri, as the
  browser flow needs;
- id_tokens for any launch (id_token()), with every claim overridable
  and a choice of signing (another key, alg none, HS256) for the
  negative tests;
- /deep-link-return: receives LtiDeepLinkingResponse JWTs and verifies
  their signature against the tool's /lti/jwks before recording them;
- /course: a course page that frames the tool (the iframe tests).

Extra endpoints (the grades tests' token, AGS and NRPS services,
tests/lti/lms_services.py) are mounted with mount(method, path, fn):
fn(request) returns (status, headers, body bytes), where request has
method, path, query (dict of lists), headers and body (bytes). The
platform itself knows nothing of them.

Load this file by its path under another name (ltilib.P is this module),
with tests/lti/ last on sys.path: "platform" is also a standard library
module, which uuid and others import.

Every server binds 127.0.0.1 on a free port; stop() shuts it down. The
issuer is http://localhost:PORT, a different site from the tool's
http://127.0.0.1:PORT, so that the browser tests are cross-site as with
a real LMS.
"""
import base64
import html
import json
import threading
import time
import urllib.parse
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from jwcrypto import jwk, jws, jwt

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
ROLE_INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
ROLE_LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
ROLE_TA = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
ROLE_INST_INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class Request:
    """What a mounted handler is given."""

    def __init__(self, method, path, query, headers, body):
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body

    def form(self):
        return urllib.parse.parse_qs(self.body.decode(), keep_blank_values=True)


class Platform:
    def __init__(self, client_id="attnjudge-client", deployments=("deploy-1",), host="localhost"):
        self.host = host  # the issuer's host name: another site than the tool's
        self.client_id = client_id
        self.deployments = list(deployments)
        self.keys = [self._new_key()]
        self.signing = self.keys[0]
        self.handlers = {}
        self.auth_requests = []  # the tool's authentication requests, as received
        self.deep_links = []  # verified LtiDeepLinkingResponse claims
        self.deep_link_errors = []
        self.tool_jwks_url = None  # set by the test: the tool's /lti/jwks
        self.tool_redirect_uri = None  # the registered redirect_uri
        self.pending = {}  # login_hint -> claims of the launch the next /auth answers
        self.lock = threading.Lock()
        self.server = None

    # ---- keys ----

    @staticmethod
    def _new_key(kid=None):
        return jwk.JWK.generate(kty="RSA", size=2048, kid=kid or uuid.uuid4().hex[:12],
                                alg="RS256", use="sig")

    def foreign_key(self):
        """A key the platform never published, under its signing key's kid
        (a forged signature)."""
        return self._new_key(self.signing["kid"])

    def rotate(self, keep_old=True):
        """A new signing key; the old one stays published unless keep_old
        is false."""
        key = self._new_key()
        with self.lock:
            self.keys = ([key] + self.keys) if keep_old else [key]
            self.signing = key
        return key

    def jwks(self):
        with self.lock:
            return {"keys": [json.loads(k.export_public()) for k in self.keys]}

    # ---- serving ----

    def mount(self, method, path, fn):
        """Serves method path with fn(Request) -> (status, headers, body)."""
        self.handlers[(method, path)] = fn

    def start(self):
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _serve(self, method):
                u = urllib.parse.urlsplit(self.path)
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                req = Request(method, u.path, urllib.parse.parse_qs(u.query), self.headers, body)
                fn = platform.handlers.get((method, u.path))
                if fn is None:
                    status, headers, out = 404, {"Content-Type": "text/plain"}, b"not found"
                else:
                    status, headers, out = fn(req)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

            def do_PUT(self):
                self._serve("PUT")

        self.mount("GET", "/jwks", lambda r: (200, {"Content-Type": "application/json"},
                                              json.dumps(self.jwks()).encode()))
        self.mount("GET", "/auth", self._auth)
        self.mount("POST", "/deep-link-return", self._deep_link_return)
        self.mount("GET", "/course", self._course)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.issuer = "http://%s:%d" % (self.host, self.port)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def url(self, path):
        return self.issuer + path

    def registration(self):
        """The values `attnjudge lti add-platform` needs."""
        return {"issuer": self.issuer, "client_id": self.client_id,
                "deployments": self.deployments, "auth_url": self.url("/auth"),
                "token_url": self.url("/token"), "jwks_url": self.url("/jwks")}

    # ---- launches ----

    def claims(self, nonce, sub="student-1", roles=(ROLE_LEARNER,), context="course-1",
               message="LtiResourceLinkRequest", link="link-1", custom=None, target=None,
               deployment=None, **extra):
        """The claims of a launch of sub into context: a resource link
        launch, or a deep linking request (message). extra overrides or
        adds claims (None removes one)."""
        now = int(time.time())
        c = {
            "iss": self.issuer, "aud": self.client_id, "sub": sub, "iat": now, "exp": now + 300,
            "nonce": nonce, "name": "User %s" % sub, "email": "%s@example.org" % sub,
            LTI + "message_type": message, LTI + "version": "1.3.0",
            LTI + "deployment_id": deployment or self.deployments[0],
            LTI + "roles": list(roles),
            LTI + "context": {"id": context, "label": context.upper(), "title": "Course " + context},
            LTI + "target_link_uri": target or (self.tool_redirect_uri or ""),
        }
        if message == "LtiResourceLinkRequest":
            c[LTI + "resource_link"] = {"id": link, "title": "Link " + link}
            if custom:
                c[LTI + "custom"] = custom
            c[AGS] = {"scope": ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
                                "https://purl.imsglobal.org/spec/lti-ags/scope/score"],
                      "lineitems": self.url("/ags/%s/lineitems" % context),
                      "lineitem": self.url("/ags/%s/lineitems/%s" % (context, link))}
            c[NRPS] = {"context_memberships_url": self.url("/nrps/%s/memberships" % context),
                       "service_versions": ["2.0"]}
        else:
            c[DL + "deep_linking_settings"] = {
                "deep_link_return_url": self.url("/deep-link-return"),
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "accept_multiple": False, "data": "opaque-%s" % uuid.uuid4().hex[:8]}
        for k, v in extra.items():
            key = k.replace("__", "/")
            if v is None:
                c.pop(key, None)
            else:
                c[key] = v
        return c

    def id_token(self, claims, key=None, alg="RS256", kid=None):
        """claims signed: by key (default the signing key) with alg RS256,
        or "none" (unsigned), or "HS256" with the public key's PEM as the
        HMAC secret (the classic key-confusion attack)."""
        key = key or self.signing
        if alg == "none":
            head = b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
            return head + "." + b64url(json.dumps(claims).encode()) + "."
        if alg == "HS256":
            secret = jwk.JWK(kty="oct", k=b64url(key.export_to_pem()))
            t = jwt.JWT(header={"alg": "HS256", "kid": kid or key["kid"], "typ": "JWT"},
                        claims=claims)
            t.make_signed_token(secret)
            return t.serialize()
        t = jwt.JWT(header={"alg": alg, "kid": kid or key["kid"], "typ": "JWT"}, claims=claims)
        t.make_signed_token(key)
        return t.serialize()

    def expect_login(self, login_hint, claims):
        """The claims (without nonce) /auth signs for login_hint's next
        authentication request (a browser flow)."""
        with self.lock:
            self.pending[login_hint] = claims

    def check_auth_request(self, q):
        """The problems of an authentication request's parameters (dict of
        single values), as a platform checks them (Security 1.0 §5.1.1.2)."""
        bad = []
        want = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post",
                "prompt": "none", "client_id": self.client_id}
        for k, v in want.items():
            if q.get(k) != v:
                bad.append("%s=%r" % (k, q.get(k)))
        if self.tool_redirect_uri and q.get("redirect_uri") != self.tool_redirect_uri:
            bad.append("redirect_uri=%r" % q.get("redirect_uri"))
        for k in ("state", "nonce", "login_hint"):
            if not q.get(k):
                bad.append("no " + k)
        return bad

    def _auth(self, req):
        q = {k: v[0] for k, v in req.query.items()}
        with self.lock:
            self.auth_requests.append(q)
            claims = self.pending.pop(q.get("login_hint"), None)
        bad = self.check_auth_request(q)
        if bad or claims is None:
            return 400, {"Content-Type": "text/plain"}, ("refused: %s" % bad).encode()
        claims = dict(claims, nonce=q["nonce"])
        token = self.id_token(claims)
        page = ('<!doctype html><html><body><form method="post" action="%s">'
                '<input type="hidden" name="id_token" value="%s">'
                '<input type="hidden" name="state" value="%s"></form>'
                '<script>document.forms[0].submit()</script></body></html>'
                % (html.escape(q["redirect_uri"]), html.escape(token), html.escape(q["state"])))
        return 200, {"Content-Type": "text/html"}, page.encode()

    def _course(self, req):
        """A course page framing the tool's login initiation (the browser
        test's LMS page)."""
        src = req.query.get("src", [""])[0]
        page = ('<!doctype html><html><body><h1>LMS course</h1>'
                '<iframe id="tool" src="%s" width="900" height="600"></iframe></body></html>'
                % html.escape(src))
        return 200, {"Content-Type": "text/html"}, page.encode()

    # ---- deep linking ----

    def _deep_link_return(self, req):
        token = req.form().get("JWT", [""])[0]
        try:
            claims = self.verify_tool_jwt(token)
        except Exception as e:  # noqa: BLE001 - recorded for the test to report
            with self.lock:
                self.deep_link_errors.append(repr(e))
            return 400, {"Content-Type": "text/plain"}, b"bad deep linking response"
        with self.lock:
            self.deep_links.append(claims)
        return 200, {"Content-Type": "text/html"}, b"<p>content added</p>"

    def verify_tool_jwt(self, token):
        """A JWT the tool signed, verified against the tool's published
        /lti/jwks (fetched now): its claims."""
        with urllib.request.urlopen(self.tool_jwks_url, timeout=10) as r:
            keyset = jwk.JWKSet.from_json(r.read().decode())
        header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "==").decode())
        if header.get("alg") != "RS256":
            raise ValueError("alg %r" % header.get("alg"))
        key = keyset.get_key(header.get("kid"))
        if key is None:
            raise ValueError("unknown kid")
        s = jws.JWS()
        s.deserialize(token)
        s.verify(key, alg="RS256")
        return json.loads(s.payload)
