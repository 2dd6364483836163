"""The LMS's service side for the LTI tests: the OAuth 2.0 token endpoint,
Assignment and Grade Services (line items, scores) and Names and Role
Provisioning Services, as the IMS specifications describe them:

- POST /token: the client-credentials grant with a JWT client assertion
  (RFC 7523; LTI Security Framework 1.0 §4.1). The assertion is verified
  against the tool's published keys (its /lti/jwks, fetched on an unknown
  kid): RS256 only, iss = sub = the client id, aud = this endpoint's URL,
  exp in the future, a jti never seen before. Answers an access token
  with the scopes granted (those asked for that the tool may have).
- GET/POST {ctx}/lineitems (AGS 2.0 §3.2): the line-item container,
  filtered by resource_link_id, resource_id and tag; POST creates one.
  GET {ctx}/lineitems/{n}: one line item.
- POST {ctx}/lineitems/{n}/scores (AGS 2.0 §3.4): a score, recorded with
  the time it arrived. A score whose timestamp is older than the last
  one recorded for the same line item and user is refused, as the
  specification makes a platform do; it is counted as out of order.
- GET {ctx}/memberships (NRPS 2.0): the context's members, paged with
  a Link rel="next" header.
- An outage switch: while `outage` is 503 or 429, every service answers
  it (429 with Retry-After), and nothing is recorded.

Every service needs a Bearer token of the token endpoint with the scope
the service requires. Mount it into the test platform (platform.py,
mount_on) or serve it alone (serve()). The standard library and Debian's
python3-jwcrypto only.
"""
import json
import secrets
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from jwcrypto import jwk, jws, jwt

SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_LINEITEM_RO = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
SCOPE_RESULT_RO = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
ALL_SCOPES = (SCOPE_LINEITEM, SCOPE_LINEITEM_RO, SCOPE_RESULT_RO, SCOPE_SCORE, SCOPE_NRPS)

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
T_LINEITEM = "application/vnd.ims.lis.v2.lineitem+json"
T_CONTAINER = "application/vnd.ims.lis.v2.lineitemcontainer+json"
T_SCORE = "application/vnd.ims.lis.v1.score+json"
T_MEMBERS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
ACTIVITY = ("Initialized", "Started", "InProgress", "Submitted", "Completed")
GRADING = ("FullyGraded", "Pending", "PendingManual", "Failed", "NotReady")


def iso_ms(text):
    """ISO 8601 with a zone (as AGS requires) → ms since the epoch."""
    from datetime import datetime
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


class LmsServices:
    """One platform's services. base: the URL this object is served at
    (its paths are relative to it); tool_jwks_url: where the tool publishes
    its keys; client_id: the tool's client id at this platform."""

    def __init__(self, base, tool_jwks_url, client_id, token_ttl_s=3600, page=50):
        self.base = base.rstrip("/")
        self.tool_jwks_url = tool_jwks_url
        self.client_id = client_id
        self.token_ttl_s = token_ttl_s
        self.page = page
        self.lock = threading.Lock()
        self.keys = None            # the tool's JWKS, fetched when needed
        self.jtis = set()           # client assertions seen (replays refused)
        self.tokens = {}            # access token -> (scopes, expires_at)
        self.token_requests = 0     # granted
        self.token_refusals = []    # reasons
        self.lineitems = {}         # n -> dict (with its context)
        self.scores = []            # every accepted score, in arrival order
        self.out_of_order = []      # scores refused for an older timestamp
        self.members = {}           # context -> [member dicts]
        self.outage = None          # None | 503 | 429
        self.unknown_users = set()  # userIds whose scores are refused (not members)
        self.outage_hits = 0
        self.granted = set(ALL_SCOPES)

    # ---- URLs the tool is told (the launch's claims) ----

    @property
    def token_url(self):
        return self.base + "/token"

    def lineitems_url(self, ctx):
        return "%s/%s/lineitems" % (self.base, ctx)

    def memberships_url(self, ctx):
        return "%s/%s/memberships" % (self.base, ctx)

    def lineitem_url(self, n):
        return "%s/%s/lineitems/%d" % (self.base, self.lineitems[n]["context"], n)

    # ---- what the tests read ----

    def gradebook(self):
        """{resourceId: {userId: the newest scoreGiven}} as the LMS shows it."""
        with self.lock:
            book = {}
            for s in self.scores:
                li = self.lineitems[s["lineitem"]]
                book.setdefault(li["resourceId"], {})[s["userId"]] = s["scoreGiven"]
            return book

    def duplicates(self):
        """Scores received more than once (same line item, user, timestamp)."""
        with self.lock:
            seen, dup = set(), []
            for s in self.scores:
                key = (s["lineitem"], s["userId"], s["timestamp"])
                if key in seen:
                    dup.append(s)
                seen.add(key)
            return dup

    # ---- the token endpoint ----

    def _tool_keys(self, refresh):
        if self.keys is None or refresh:
            if callable(self.tool_jwks_url):
                self.keys = jwk.JWKSet.from_json(self.tool_jwks_url())
            else:
                with urllib.request.urlopen(self.tool_jwks_url, timeout=10) as r:
                    self.keys = jwk.JWKSet.from_json(r.read().decode())
        return self.keys

    def _check_assertion(self, text):
        """The claims of a valid client assertion, or raises ValueError."""
        try:
            header = json.loads(jws.base64url_decode(text.split(".")[0]))
        except Exception:  # noqa: BLE001 - any malformed assertion is refused
            raise ValueError("not a JWS")
        if header.get("alg") != "RS256":
            raise ValueError("alg %r" % header.get("alg"))
        kid = header.get("kid")
        keys = self._tool_keys(False)
        if not kid or keys.get_key(kid) is None:
            keys = self._tool_keys(True)
        key = keys.get_key(kid) if kid else None
        if key is None:
            raise ValueError("unknown kid %r" % kid)
        try:
            tok = jwt.JWT(jwt=text, key=key, algs=["RS256"], check_claims={})
        except Exception as e:  # noqa: BLE001
            raise ValueError("signature: %s" % e)
        c = json.loads(tok.claims)
        now = time.time()
        if c.get("iss") != self.client_id or c.get("sub") != self.client_id:
            raise ValueError("iss/sub %r/%r" % (c.get("iss"), c.get("sub")))
        aud = c.get("aud")
        if aud != self.token_url and not (isinstance(aud, list) and self.token_url in aud):
            raise ValueError("aud %r" % aud)
        if not isinstance(c.get("exp"), (int, float)) or c["exp"] < now - 5:
            raise ValueError("expired")
        if not isinstance(c.get("iat"), (int, float)) or c["iat"] > now + 60:
            raise ValueError("iat in the future")
        jti = c.get("jti")
        if not jti or jti in self.jtis:
            raise ValueError("jti missing or replayed")
        self.jtis.add(jti)
        return c

    def _token(self, form):
        f = urllib.parse.parse_qs(form, keep_blank_values=True)
        one = {k: v[0] for k, v in f.items()}
        if one.get("grant_type") != "client_credentials":
            return 400, {"error": "unsupported_grant_type"}
        if one.get("client_assertion_type") != ASSERTION_TYPE:
            return 400, {"error": "invalid_request"}
        try:
            with self.lock:
                self._check_assertion(one.get("client_assertion", ""))
        except ValueError as e:
            self.token_refusals.append(str(e))
            return 401, {"error": "invalid_client", "error_description": str(e)}
        asked = one.get("scope", "").split()
        scopes = [s for s in asked if s in self.granted]
        if not scopes:
            return 400, {"error": "invalid_scope"}
        token = secrets.token_urlsafe(24)
        with self.lock:
            self.tokens[token] = (set(scopes), time.time() + self.token_ttl_s)
            self.token_requests += 1
        return 200, {"access_token": token, "token_type": "Bearer",
                     "expires_in": self.token_ttl_s, "scope": " ".join(scopes)}

    def _authorized(self, headers, *need):
        auth = headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return False
        with self.lock:
            got = self.tokens.get(auth[7:])
        return bool(got) and got[1] > time.time() and any(s in got[0] for s in need)

    # ---- AGS ----

    def _lineitem_json(self, n):
        li = dict(self.lineitems[n])
        li.pop("context")
        li["id"] = self.lineitem_url(n)
        return li

    def _lineitems(self, method, ctx, query, body):
        if method == "GET":
            q = {k: v[0] for k, v in urllib.parse.parse_qs(query).items()}
            out = []
            with self.lock:
                for n, li in sorted(self.lineitems.items()):
                    if li["context"] != ctx:
                        continue
                    if "resource_link_id" in q and li.get("resourceLinkId") != q["resource_link_id"]:
                        continue
                    if "resource_id" in q and li.get("resourceId") != q["resource_id"]:
                        continue
                    if "tag" in q and li.get("tag") != q["tag"]:
                        continue
                    out.append(self._lineitem_json(n))
            return 200, T_CONTAINER, out
        try:
            li = json.loads(body)
        except ValueError:
            return 400, "application/json", {"error": "not JSON"}
        if not isinstance(li.get("scoreMaximum"), (int, float)) or li["scoreMaximum"] <= 0 \
                or not isinstance(li.get("label"), str) or not li["label"]:
            return 400, "application/json", {"error": "scoreMaximum > 0 and label required"}
        with self.lock:
            n = len(self.lineitems) + 1
            li["context"] = ctx
            self.lineitems[n] = li
            out = self._lineitem_json(n)
        self._mount_item(n)
        return 201, T_LINEITEM, out

    def add_lineitem(self, ctx, label, score_maximum, resource_id, resource_link_id=None):
        """A line item the LMS made itself (deep linking's), its URL."""
        with self.lock:
            n = len(self.lineitems) + 1
            self.lineitems[n] = {"context": ctx, "label": label, "scoreMaximum": score_maximum,
                                 "resourceId": resource_id, "resourceLinkId": resource_link_id}
        self._mount_item(n)
        return self.lineitem_url(n)

    def _score(self, n, ctype, body):
        if ctype.split(";")[0].strip() != T_SCORE:
            return 415, {"error": "Content-Type must be " + T_SCORE}
        try:
            s = json.loads(body)
            ts = iso_ms(s["timestamp"])
        except (ValueError, KeyError, TypeError):
            return 400, {"error": "a score with an ISO 8601 timestamp"}
        if not isinstance(s.get("userId"), str) or s.get("activityProgress") not in ACTIVITY \
                or s.get("gradingProgress") not in GRADING:
            return 400, {"error": "userId, activityProgress and gradingProgress required"}
        if "scoreGiven" in s and not (isinstance(s["scoreGiven"], (int, float))
                                      and isinstance(s.get("scoreMaximum"), (int, float))
                                      and 0 <= s["scoreGiven"] and s["scoreMaximum"] > 0):
            return 400, {"error": "scoreGiven needs scoreMaximum > 0"}
        if s["userId"] in self.unknown_users:
            return 400, {"error": "userId is not a member of the context"}
        with self.lock:
            last = [x for x in self.scores if x["lineitem"] == n and x["userId"] == s["userId"]]
            if last and ts < last[-1]["ts"]:
                # AGS 2.0 §3.4.8: the platform must not update a result with
                # an older timestamp than the one on record
                self.out_of_order.append(s)
                return 409, {"error": "older than the score on record"}
            s["lineitem"], s["ts"], s["received"] = n, ts, time.time()
            self.scores.append(s)
        return 204, None

    # ---- NRPS ----

    def _memberships(self, ctx, query):
        q = {k: v[0] for k, v in urllib.parse.parse_qs(query).items()}
        start = int(q.get("from", "0"))
        with self.lock:
            members = list(self.members.get(ctx, []))
        chunk = members[start:start + self.page]
        link = None
        if start + self.page < len(members):
            link = '<%s?from=%d>; rel="next"' % (self.memberships_url(ctx), start + self.page)
        body = {"id": self.memberships_url(ctx),
                "context": {"id": ctx, "label": ctx, "title": ctx}, "members": chunk}
        return body, link

    # ---- dispatch ----

    def handle(self, method, path, headers, body):
        """(status, headers, body bytes) for a request under base's path,
        or None when the path is not one of these services."""
        prefix = urllib.parse.urlsplit(self.base).path
        url = urllib.parse.urlsplit(path)
        if not url.path.startswith(prefix + "/"):
            return None
        parts = url.path[len(prefix) + 1:].split("/")

        def js(status, obj, ctype="application/json", extra=None):
            h = {"Content-Type": ctype}
            h.update(extra or {})
            return status, h, b"" if obj is None else json.dumps(obj).encode()

        if self.outage:
            with self.lock:
                self.outage_hits += 1
            extra = {"Retry-After": "1"} if self.outage == 429 else None
            return js(self.outage, {"error": "the LMS is unavailable"}, extra=extra)
        if parts == ["token"] and method == "POST":
            st, obj = self._token(body.decode("utf-8", "replace"))
            return js(st, obj, extra={"Cache-Control": "no-store"})
        if len(parts) == 2 and parts[1] == "lineitems" and method in ("GET", "POST"):
            need = (SCOPE_LINEITEM,) if method == "POST" else (SCOPE_LINEITEM, SCOPE_LINEITEM_RO)
            if not self._authorized(headers, *need):
                return js(401, {"error": "unauthorized"})
            st, ctype, obj = self._lineitems(method, parts[0], url.query, body)
            return js(st, obj, ctype)
        if len(parts) in (3, 4) and parts[1] == "lineitems" and parts[2].isdigit():
            n = int(parts[2])
            if n not in self.lineitems or self.lineitems[n]["context"] != parts[0]:
                return js(404, {"error": "no such line item"})
            if len(parts) == 3 and method == "GET":
                if not self._authorized(headers, SCOPE_LINEITEM, SCOPE_LINEITEM_RO):
                    return js(401, {"error": "unauthorized"})
                with self.lock:
                    return js(200, self._lineitem_json(n), T_LINEITEM)
            if len(parts) == 4 and parts[3] == "scores" and method == "POST":
                if not self._authorized(headers, SCOPE_SCORE):
                    return js(401, {"error": "unauthorized"})
                st, obj = self._score(n, headers.get("Content-Type", ""), body)
                return js(st, obj)
        if len(parts) == 2 and parts[1] == "memberships" and method == "GET":
            if not self._authorized(headers, SCOPE_NRPS):
                return js(401, {"error": "unauthorized"})
            obj, link = self._memberships(parts[0], url.query)
            return js(200, obj, T_MEMBERS, {"Link": link} if link else None)
        return js(404, {"error": "not found"})

    def mount_on(self, platform, contexts):
        """Serves these services from the test platform (platform.py), whose
        issuer must be base: its mount() takes exact paths, so every path
        is mounted as it comes to exist (a line item's when created)."""
        self.platform = platform
        self._mount("POST", "/token")
        for ctx in contexts:
            self._mount("GET", "/%s/lineitems" % ctx)
            self._mount("POST", "/%s/lineitems" % ctx)
            self._mount("GET", "/%s/memberships" % ctx)
        for n in list(self.lineitems):
            self._mount_item(n)

    def _mount(self, method, path):
        prefix = urllib.parse.urlsplit(self.base).path

        def fn(req):
            query = urllib.parse.urlencode(req.query, doseq=True)
            got = self.handle(req.method, req.path + ("?" + query if query else ""),
                              req.headers, req.body)
            return got if got else (404, {"Content-Type": "text/plain"}, b"not found")
        self.platform.mount(method, prefix + path, fn)

    def _mount_item(self, n):
        if getattr(self, "platform", None):
            path = urllib.parse.urlsplit(self.lineitem_url(n)).path
            prefix = urllib.parse.urlsplit(self.base).path
            self._mount("GET", path[len(prefix):])
            self._mount("POST", path[len(prefix):] + "/scores")

    def handle_request(self, h):
        """Answers BaseHTTPRequestHandler h if its path is ours: True, else
        False (the platform's own routes, for platform.py)."""
        n = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(n) if n else b""
        got = self.handle(h.command, h.path, h.headers, body)
        if got is None:
            return False
        st, hdrs, data = got
        h.send_response(st)
        for k, v in hdrs.items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
        return True


def serve(make):
    """Serves the services alone on a free loopback port: make(base) builds
    the LmsServices; returns (services, http server); stop with
    server.shutdown() and server.server_close()."""
    holder = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _any(self):
            if not holder["svc"].handle_request(self):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

        do_GET = do_POST = do_PUT = do_DELETE = _any

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    holder["svc"] = make("http://127.0.0.1:%d/lms" % httpd.server_address[1])
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return holder["svc"], httpd
