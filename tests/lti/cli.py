"""attnjudge lti on the command line: add-platform with its checks (the
URLs, a duplicate, the default frame origins), list, remove, rotate-key
(the key directory's modes, the old key still published next to the new
one at the next start), --help.

    /usr/bin/python3 tests/lti/cli.py BUILD/attnjudge
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import traceback
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
# this directory last: its platform.py must not hide the standard library's
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE] + [HERE]
from ltilib import Browser, LtiServer  # noqa: E402
from serverlib import Report  # noqa: E402

ADD = ["add-platform", "--issuer", "https://lms.example.edu", "--client-id", "c-1",
       "--deployment-id", "d-1", "--deployment-id", "d-2",
       "--auth-url", "https://auth.example.edu/authorize", "--token-url",
       "https://lms.example.edu/token", "--jwks-url", "https://lms.example.edu/jwks"]


def run(binary):
    rep = Report()
    tmp = tempfile.mkdtemp(prefix="attnjudge-lti-cli.")
    os.chmod(tmp, 0o711)
    # few sign-in attempts per address: the LTI logins count against them
    srv = LtiServer(binary, tmp, "lti-cli", conf={"auth_burst": 3, "auth_rate_per_min": 0.001})
    try:
        p = subprocess.run([binary, "lti", "--help"], capture_output=True, text=True)
        rep.check("lti --help: 0 and every verb", p.returncode == 0 and all(
            v in p.stdout for v in ("add-platform", "list", "remove", "rotate-key")))
        p = subprocess.run([binary, "--help"], capture_output=True, text=True)
        rep.check("attnjudge --help names lti", "  lti " in p.stdout)
        st, out, err = srv.lti("frobnicate", check=False)
        rep.check("an unknown verb: 2", st == 2, err)
        st, out, err = srv.lti("add-platform", "--issuer", "https://x", check=False)
        rep.check("add-platform without the other options: 2", st == 2, err)
        bad = list(ADD)
        bad[bad.index("--jwks-url") + 1] = "ftp://lms.example.edu/jwks"
        st, out, err = srv.lti(*bad, check=False)
        rep.check("add-platform with a non-http URL: 2", st == 2, err)
        st, out, err = srv.lti(*ADD, check=False)
        rep.check("add-platform: 0", st == 0 and "registered platform 1" in out, out + err)
        st, out, err = srv.lti(*ADD, check=False)
        rep.check("the same issuer and client again: 1, refused", st == 1 and "already" in err,
                  err)
        st, out, err = srv.lti("list", check=False)
        rep.check("list: the platform, both deployments, the default frame origins",
                  st == 0 and "https://lms.example.edu" in out and "d-1 d-2" in out and
                  "frame origins: https://lms.example.edu https://auth.example.edu" in out, out)
        st, out, err = srv.lti("rotate-key", check=False)
        keydir = os.path.join(srv.data, "lti")
        files = sorted(os.listdir(keydir)) if os.path.isdir(keydir) else []
        rep.check("rotate-key: a key in DATA/lti (0700) as a 0600 file",
                  st == 0 and len(files) == 1 and
                  stat.S_IMODE(os.stat(keydir).st_mode) == 0o700 and
                  stat.S_IMODE(os.stat(os.path.join(keydir, files[0])).st_mode) == 0o600,
                  "%s %s" % (out + err, files))
        srv.start()
        with urllib.request.urlopen(srv.public_url + "/lti/jwks", timeout=10) as r:
            kids1 = [k["kid"] for k in json.load(r)["keys"]]
        b = Browser(srv)
        q = "/lti/login?" + urllib.parse.urlencode({
            "iss": "https://lms.example.edu", "client_id": "c-1", "login_hint": "x",
            "target_link_uri": srv.public_url + "/"})
        codes = [b.request("GET", q)[0].status for _ in range(4)]
        r, _ = b.request("GET", q)
        rep.check("logins no launch completed count per address: 302 x3, then 429 with Retry-After",
                  codes == [302, 302, 302, 429] and r.headers.get("Retry-After"), str(codes))
        srv.stop()
        st, out, err = srv.lti("rotate-key", check=False)
        srv.start()
        with urllib.request.urlopen(srv.public_url + "/lti/jwks", timeout=10) as r:
            kids2 = [k["kid"] for k in json.load(r)["keys"]]
        rep.check("after rotate-key and a restart: the new key first, the old one still published",
                  st == 0 and len(kids2) == 2 and kids2[1] == kids1[0] and kids2[0] != kids1[0],
                  "%s %s" % (kids1, kids2))
        srv.stop()
        st, out, err = srv.lti("remove", "1", check=False)
        rep.check("remove 1: 0", st == 0 and "removed platform 1" in out, out + err)
        st, out, err = srv.lti("remove", "1", check=False)
        rep.check("remove 1 again: 1, no such platform", st == 1, err)
        st, out, err = srv.lti("list", check=False)
        rep.check("list: empty after the removal", st == 0 and out.strip() == "", out)
    except Exception as e:  # noqa: BLE001 - a crash of the scenario is one failure
        traceback.print_exc()
        rep.check("lti cli scenario ran to the end", False, repr(e))
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()


if __name__ == "__main__":
    sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else "build/attnjudge"))
