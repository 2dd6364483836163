"""Runs tests/lti/browser.mjs: a server (the built web UI, web/dist) and
the test platform (platform.py) registered with it, then Chromium
launching through the platform's course page, inside its iframe and at
the top level. Passes the node script's lines through and its counts on.

    /usr/bin/python3 tests/lti/browser.py BUILD/attnjudge
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
# this directory last: its platform.py must not hide the standard library's
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE] + [HERE]
from ltilib import P, LtiServer  # noqa: E402
from serverlib import ROOT, Report  # noqa: E402

SLUG = "softmax-stable"


def initiation(srv, plat, hint):
    return srv.public_url + "/lti/login?" + urllib.parse.urlencode({
        "iss": plat.issuer, "login_hint": hint, "target_link_uri": srv.public_url + "/",
        "client_id": plat.client_id, "lti_message_hint": "m-" + hint})


def run_node(script, env, seconds):
    """node script, bounded by seconds (then a failure, as its exit status
    124 says). However this scenario ends, node is stopped first, and
    Chromium with it (it ends with node's pipe), before the temporary
    directory that holds its profile is removed."""
    proc = subprocess.Popen(["node", script], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = proc.communicate(timeout=seconds)
        return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    except subprocess.TimeoutExpired:
        stdout, stderr = stop(proc)
        return subprocess.CompletedProcess(proc.args, 124, stdout, stderr)
    except BaseException:
        stop(proc)
        raise


def stop(proc):
    """TERM, then KILL after 10 s; returns what it printed."""
    proc.terminate()
    try:
        return proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()


def run(binary):
    rep = Report()
    if subprocess.run([os.path.join(ROOT, "web", "build.sh")], stdout=subprocess.DEVNULL).returncode:
        rep.check("web/build.sh builds the web UI", False)
        return rep.summary()
    tmp = tempfile.mkdtemp(prefix="attnjudge-lti-browser.")
    os.chmod(tmp, 0o711)
    plat = P.Platform(host="127.0.0.1").start()
    srv = LtiServer(binary, tmp, "lti-browser", host="localhost")
    # the real web UI
    shutil.rmtree(os.path.join(srv.dir, "web"))
    shutil.copytree(os.path.join(ROOT, "web", "dist"), os.path.join(srv.dir, "web"))
    try:
        srv.register(plat)
        srv.start()
        # the instructor opens the course first (it binds the course), at
        # the top level; the student launches inside the course's frame
        plat.expect_login("teacher", plat.claims("", sub="browser-teacher",
                                                 roles=[P.ROLE_INSTRUCTOR]))
        plat.expect_login("student", plat.claims("", sub="browser-student",
                                                 custom={"problem": SLUG}, link="link-b"))
        plat.expect_login("strict", plat.claims("", sub="strict-student",
                                                custom={"problem": SLUG}, link="link-s"))
        course = plat.url("/course?") + urllib.parse.urlencode({"src": initiation(srv, plat,
                                                                                   "student")})
        env = dict(os.environ, ROOT=ROOT, CHROMIUM=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                   TOOL=srv.public_url, SLUG=SLUG, ISSUER=plat.issuer, COURSE_URL=course,
                   TOP_URL=initiation(srv, plat, "teacher"), PROFILE=os.path.join(tmp, "profile"),
                   STRICT_PROFILE=os.path.join(tmp, "strict-profile"),
                   STRICT_COURSE_URL=plat.url("/course?") + urllib.parse.urlencode(
                       {"src": initiation(srv, plat, "strict")}))
        os.makedirs(env["STRICT_PROFILE"])
        # a browser whose user allows third-party cookies (the default of
        # Chromium's preferences here blocks them)
        os.makedirs(os.path.join(env["PROFILE"], "Default"))
        with open(os.path.join(env["PROFILE"], "Default", "Preferences"), "w") as f:
            json.dump({"profile": {"cookie_controls_mode": 0, "block_third_party_cookies": False}}, f)
        out = run_node(os.path.join(HERE, "browser.mjs"), env, 300)
        # names hold no ": ", after which a failure's reason follows
        for line in out.stdout.splitlines():
            if line.startswith("ok "):
                rep.check(line[3:], True)
            elif line.startswith("FAIL "):
                name, _, why = line[5:].partition(": ")
                rep.check(name, False, why)
        if out.returncode not in (0, 1) or not out.stdout.strip():
            rep.check("browser.mjs ran", False, (out.stderr or out.stdout)[-500:])
        rep.check("the platform saw lti_message_hint passed back unchanged",
                  any(q.get("lti_message_hint") == "m-student" for q in plat.auth_requests),
                  str(plat.auth_requests)[:300])
    except Exception as e:  # noqa: BLE001 - a crash of the scenario is one failure
        traceback.print_exc()
        rep.check("lti browser scenario ran to the end", False, repr(e))
    finally:
        srv.stop()
        plat.stop()
        if rep.failed:
            print("--- server log:\n" + srv.log_tail(30))
            print("--- access log:\n" + open(srv.conf["access_log"]).read()[-1500:])
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()


if __name__ == "__main__":
    sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else "build/attnjudge"))
