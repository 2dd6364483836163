"""What the LTI scenarios share: the test platform module (P: platform.py,
loaded by its path, since "platform" is also a standard library module), a server whose public_url is its own
loopback URL (LTI's redirect_uri must be exact), registered with a test
platform (platform.py) through `attnjudge lti add-platform`, and a
cookie-keeping HTTP client that plays the browser's part of a launch
without a browser (login -> the platform's /auth -> launch).
"""
import http.client
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "server"))

import serverlib  # noqa: E402
from serverlib import ROOT, Server  # noqa: E402,F401

_spec = importlib.util.spec_from_file_location("lti_platform", os.path.join(HERE, "platform.py"))
P = importlib.util.module_from_spec(_spec)
sys.modules["lti_platform"] = P
_spec.loader.exec_module(P)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class LtiServer(Server):
    """A Server on a port chosen before the start, so that public_url can
    name it (serverlib's servers take whatever port the kernel gives)."""

    def __init__(self, binary, tmp, name, conf=None, host="127.0.0.1", **kw):
        self.fixed_port = free_port()
        conf = dict(conf or {})
        conf.setdefault("public_url", "http://%s:%d" % (host, self.fixed_port))
        super().__init__(binary, tmp, name, conf=conf, **kw)
        self.public_url = self.conf["public_url"]
        os.makedirs(os.path.join(self.dir, "web"), exist_ok=True)
        with open(os.path.join(self.dir, "web", "index.html"), "w") as f:
            f.write("<!doctype html><title>attnjudge</title>")

    def start(self):
        path = self.write_conf()
        self.out = open(os.path.join(self.dir, "server.out"), "w")
        self.err_path = os.path.join(self.dir, "server.err")
        self.err = open(self.err_path, "a")
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.fixed_port), "--data", self.data,
             "--problems", self.problems, "--reference", os.path.join(ROOT, "reference"),
             "--web", os.path.join(self.dir, "web"), "--workers", str(self.workers),
             "--config", path], stdout=self.out, stderr=self.err)
        deadline = time.time() + 30
        while time.time() < deadline:
            if "listening on http://" in open(os.path.join(self.dir, "server.out")).read():
                self.port = self.fixed_port
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError("the server did not start:\n" + self.log_tail())

    def lti(self, *args, check=True):
        """`attnjudge lti ARGS --config serve.conf --data DATA`: (status,
        stdout, stderr)."""
        p = subprocess.run([self.binary, "lti"] + list(args) + ["--config", self.write_conf(), "--data", self.data],
                           capture_output=True, text=True, timeout=120)
        if check and p.returncode != 0:
            raise RuntimeError("attnjudge lti %s: %s" % (" ".join(args), p.stderr))
        return p.returncode, p.stdout, p.stderr

    def register(self, platform):
        reg = platform.registration()
        args = ["add-platform", "--issuer", reg["issuer"], "--client-id", reg["client_id"],
                "--auth-url", reg["auth_url"], "--token-url", reg["token_url"],
                "--jwks-url", reg["jwks_url"]]
        for d in reg["deployments"]:
            args += ["--deployment-id", d]
        self.lti(*args)
        platform.tool_jwks_url = self.public_url + "/lti/jwks"
        platform.tool_redirect_uri = self.public_url + "/lti/launch"


class Browser:
    """Cookies per name (the tool's only), one request at a time."""

    def __init__(self, srv):
        self.srv = srv
        self.cookies = {}
        self.set_cookie_lines = []

    def request(self, method, path, body=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.srv.port, timeout=60)
        h = dict(headers or {})
        if self.cookies:
            h["Cookie"] = "; ".join("%s=%s" % kv for kv in self.cookies.items())
        if isinstance(body, dict):
            body = urllib.parse.urlencode(body).encode()
            h.setdefault("Content-Type", "application/x-www-form-urlencoded")
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        self.last_body = data
        for line in r.headers.get_all("Set-Cookie") or []:
            self.set_cookie_lines.append(line)
            name, _, rest = line.partition("=")
            value = rest.split(";")[0]
            if "Max-Age=0" in line:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        c.close()
        return r, data

    def login(self, platform, login_hint="hint-1", message_hint="msg-hint-1", target=None,
              extra=None):
        """The platform's initiation (GET /lti/login): the tool's redirect
        and its query (dict of single values)."""
        params = {"iss": platform.issuer, "login_hint": login_hint,
                  "target_link_uri": target or self.srv.public_url + "/",
                  "lti_message_hint": message_hint, "client_id": platform.client_id,
                  "lti_deployment_id": platform.deployments[0]}
        params.update(extra or {})
        params = {k: v for k, v in params.items() if v is not None}
        r, body = self.request("GET", "/lti/login?" + urllib.parse.urlencode(params))
        loc = r.headers.get("Location") or ""
        q = {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(loc).query).items()}
        return r, loc, q

    def launch(self, id_token, state):
        fields = {}
        if id_token is not None:
            fields["id_token"] = id_token
        if state is not None:
            fields["state"] = state
        return self.request("POST", "/lti/launch", fields, {"Origin": "http://localhost:1"})

    def full_launch(self, platform, token_for, **login_kw):
        """login, then the id_token token_for(nonce) posted with the state:
        the launch's response and body."""
        _, _, q = self.login(platform, **login_kw)
        return self.launch(token_for(q.get("nonce", "")), q.get("state"))

    def api(self, method, path):
        """A JSON API call with the session cookie."""
        r, data = self.request(method, path, headers={"Accept": "application/json"})
        import json
        try:
            return r.status, json.loads(data) if data else None
        except ValueError:
            return r.status, None


def error_code(body):
    import json
    try:
        return json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


run_scenario_base = serverlib.run_scenario
