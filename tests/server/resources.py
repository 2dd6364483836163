"""HTTP resource controls (issue 7, item 4) against real servers, loopback
only (other clients bind to other 127.x.y.z addresses):

1. held unauthenticated uploads: 400 connections each declare a 2 MB body
   to POST /api/problems, send it and hold the socket; every one gets 401
   before its body is read, and the server's resident memory stays bounded
   (measured from /proc); a student's upload is 403 the same way;
2. a thousand idle connections from one address: at most
   max_connections_per_ip are kept, another address is served, and the
   server's log gets a line for the refusals, not one per refusal;
3. descriptor exhaustion under a low `ulimit -n`: with the automatic
   connection limit, a flood of connections leaves judging its descriptors
   (no retry needed); with max_connections forced above the limit, the
   judge runs out of descriptors, the submissions are re-queued with a
   back-off instead of getting internal_error, and once the flood ends each
   is judged exactly once.

    python3 tests/server/resources.py BUILD_DIR/attnjudge

Every socket and server this script opens is closed; only its own server
pids are signalled; every wait is bounded.
"""
import os
import shutil
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import Report, Server, raise_own_nofile, source, wait_until  # noqa: E402

SLUG = "mha-fused-qkv"
GOOD = "tests/submissions/%s/accepted/plain_float.c" % SLUG
BODY = 2_000_000


def connect(port, source_ip, timeout=5):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((source_ip, 0))
    s.connect(("127.0.0.1", port))
    return s


def close_all(socks):
    for s in socks:
        try:
            s.close()
        except OSError:
            pass
    socks.clear()


def status_of(sock):
    """The status code of the response waiting on sock, or None."""
    try:
        data = sock.recv(4096)
    except OSError:
        return None
    parts = data.split(b" ", 2)
    return int(parts[1]) if len(parts) >= 2 and parts[0].startswith(b"HTTP/") else None


def held_uploads(binary, tmp, rep):
    srv = Server(binary, tmp, "uploads", {"max_connections_per_ip": 64})
    socks = []
    try:
        srv.add_user("prof", "prof-password", "instructor")
        srv.start()
        student = srv.client()
        student.sign_up("stud")
        time.sleep(0.5)
        base = srv.status_kb("VmRSS")
        head = ("POST /api/problems HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % BODY).encode()
        chunk = b"a" * 65536
        codes = {}
        n = 400
        for i in range(n):
            # 10 addresses x 40 connections: under the per-IP limit
            s = connect(srv.port, "127.0.0.%d" % (2 + i % 10))
            socks.append(s)
            s.sendall(head)
            s.settimeout(0.5)
            sent = 0
            try:  # the whole body but its last byte; the server may close first
                while sent < BODY - 1:
                    sent += s.send(chunk[:min(len(chunk), BODY - 1 - sent)])
            except OSError:
                pass
        peak = srv.status_kb("VmRSS")
        for s in socks:
            s.settimeout(5)
            c = status_of(s)
            codes[c] = codes.get(c, 0) + 1
        rep.check("%d held unauthenticated 2 MB uploads all get 401 before their body (%s)"
                  % (n, codes), codes.get(401) == n)
        grown = (peak - base) / 1024
        print("figure: server RSS %.1f MiB before, %.1f MiB with %d uploads held (+%.1f MiB; "
              "buffering them would take %d MiB)" % (base / 1024, peak / 1024, n, grown,
                                                     n * BODY >> 20), flush=True)
        rep.check("server memory stays bounded while they are held (+%.1f MiB < 64 MiB)" % grown,
                  grown < 64)
        close_all(socks)
        st, body, _ = student.call("POST", "/api/problems", {"problem_json": "x" * 100})
        rep.check("a student's upload is 403 forbidden", st == 403, "%d %s" % (st, body))
        s = connect(srv.port, "127.0.0.20")
        socks.append(s)
        s.sendall(("POST /api/problems HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                   "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                   % (student.token, BODY)).encode() + chunk)
        rep.check("... and refused from its headers alone, before the body", status_of(s) == 403)
        close_all(socks)
        st, _, _ = srv.client().call("GET", "/healthz")
        rep.check("the server still answers afterwards", st == 200)
    finally:
        close_all(socks)
        srv.stop()


def idle_flood(binary, tmp, rep):
    limit = 64
    srv = Server(binary, tmp, "idle", {"max_connections_per_ip": limit})
    socks = []
    try:
        srv.start()
        refused = 0
        for _ in range(1000):
            try:
                socks.append(connect(srv.port, "127.0.0.2"))
            except OSError:
                refused += 1
        time.sleep(1.0)  # the server accepts and drops those over the limit
        alive = 0
        for s in socks:
            s.setblocking(False)
            try:
                alive += s.recv(1) != b""
            except BlockingIOError:
                alive += 1  # open and silent: still held by the server
            except OSError:
                pass
        rep.check("1000 idle connections from 127.0.0.2: at most %d kept (%d kept, %d refused "
                  "at connect)" % (limit, alive, refused), alive <= limit)
        t0 = time.time()
        try:
            st, body, _ = srv.client("127.0.0.3", timeout=10).call("GET", "/healthz")
        except OSError as e:
            st, body = None, repr(e)
        ms = (time.time() - t0) * 1000
        rep.check("meanwhile 127.0.0.3 is served (GET /healthz %s in %.0f ms)" % (st, ms),
                  st == 200, str(body))
        lines = [l for l in srv.log().splitlines() if "attnjudge: http:" in l]
        rep.check("the refusals do not flood the server's log (%d lines)" % len(lines),
                  len(lines) <= 10, "\n".join(lines[:5]))
    finally:
        close_all(socks)
        srv.stop()


def descriptor_flood(binary, tmp, rep, name, conf, expect_retries):
    """A server under `ulimit -n 256`; a keep-alive client signs in, then
    connections from other addresses fill whatever the server accepts, then
    the client submits over its open connection."""
    conf = dict(conf, user_queue_max=100, max_connections_per_ip=0)
    srv = Server(binary, tmp, name, conf, nofile=256)
    socks = []
    try:
        srv.start()
        c = srv.client(timeout=60)
        c.sign_up("flooded")
        st, _, _ = c.call("GET", "/api/problems/" + SLUG)  # load the problem before the flood
        for i in range(600):
            try:
                socks.append(connect(srv.port, "127.0.%d.%d" % (1 + i // 200, 2 + i % 200), 2))
            except OSError:
                break
        time.sleep(1.0)
        fds = srv.open_fds()
        ids = []
        for _ in range(4):
            st, body, _ = c.submit(SLUG, source(GOOD))
            if st == 202:
                ids.append(body["id"])
        rep.check("%s: 4 submissions accepted over a kept connection while %d descriptors of 256 "
                  "are open" % (name, fds), len(ids) == 4)
        if expect_retries:
            seen = wait_until(lambda: "ran out of resources" in srv.log(), 30)
            rep.check("%s: the judge runs out of descriptors and re-queues (log: %s)"
                      % (name, next((l for l in srv.log().splitlines() if "ran out" in l), "-")),
                      seen)
            rep.check("%s: no verdict is recorded while starved" % name, srv.db(
                "SELECT count(*) FROM submissions WHERE status = 'done'")[0][0] == 0)
        else:
            ok = wait_until(lambda: srv.db(
                "SELECT count(*) FROM submissions WHERE status = 'done'")[0][0] == 4, 90)
            rep.check("%s: all 4 judged during the flood" % name, ok)
        close_all(socks)
        ok = wait_until(lambda: srv.db(
            "SELECT count(*) FROM submissions WHERE status = 'done'")[0][0] == 4, 180, 0.5)
        rows = srv.db("SELECT verdict, judgements, retries FROM submissions")
        rep.check("%s: every submission judged accepted exactly once, none internal_error (%s)"
                  % (name, rows), ok and all(r[0] == "accepted" and r[1] == 1 for r in rows)
                  and len(rows) == 4)
        retries = sum(r[2] for r in rows)
        rep.check("%s: %s" % (name, "retries happened (%d)" % retries if expect_retries
                              else "no retry was needed"),
                  retries > 0 if expect_retries else retries == 0)
    finally:
        close_all(socks)
        srv.stop()


def main():
    binary = sys.argv[1]
    raise_own_nofile()
    rep = Report()
    tmp = tempfile.mkdtemp(prefix="attnjudge-resources.")
    # a server started as root runs as run_as, which must reach its data
    # directory by name (docs/operations.md)
    os.chmod(tmp, 0o711)
    try:
        for name, fn in (("held uploads", lambda: held_uploads(binary, tmp, rep)),
                         ("idle flood", lambda: idle_flood(binary, tmp, rep)),
                         ("auto limit", lambda: descriptor_flood(
                             binary, tmp, rep, "auto connection limit", {}, False)),
                         ("forced limit", lambda: descriptor_flood(
                             binary, tmp, rep, "max_connections above the limit",
                             {"max_connections": 2000}, True))):
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - a crash of a scenario is one failure
                rep.check(name + " scenario ran to the end", False, repr(e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()


if __name__ == "__main__":
    sys.exit(main())
