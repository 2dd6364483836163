"""Helpers of the Python server tests (fair_queue.py, resources.py) and of
the load bench (load.py): start `attnjudge serve` on a kernel-chosen free
loopback port with a temporary data directory, talk to its API, read its
memory from /proc, and report "ok ..." / "FAIL ..." lines.

Only the pids these helpers start are ever signalled; every wait is
bounded.
"""
import http.client
import json
import os
import resource
import signal
import sqlite3
import subprocess
import threading
import time

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _stopped(signum, frame):
    """A TERM (the suite stopped, or its timeout(1) expired) ends a scenario
    the way an error does: its `finally` blocks stop the servers it started
    and remove their directories, rather than leave them running."""
    raise SystemExit(128 + signum)


signal.signal(signal.SIGTERM, _stopped)

# How long a test's HTTP client waits for one response: 30 s, longer under
# the sanitizers (the Makefile's test target sets it), where the server's
# own work, such as the check of an uploaded problem, is several times slower.
HTTP_TIMEOUT_S = float(os.environ.get("ATTNJUDGE_TEST_HTTP_TIMEOUT_S", "30"))


class Report:
    """Counts ok/FAIL lines; summary() prints "N passed, N failed"."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, cond, detail=""):
        if cond:
            self.passed += 1
            print("ok " + name, flush=True)
        else:
            self.failed += 1
            print("FAIL " + name + (": " + detail if detail else ""), flush=True)
        return cond

    def summary(self):
        print("%d passed, %d failed" % (self.passed, self.failed), flush=True)
        return 0 if self.failed == 0 else 1


def raise_own_nofile():
    """The tests open hundreds of sockets: use the hard descriptor limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def pg_schema_url(base, name):
    """A fresh schema on the PostgreSQL server of base (a URL, as
    tests/pg/pglib.sh gives) and the URL that uses it (search_path)."""
    psql = os.path.join(os.environ["PG_BIN"], "psql") if os.environ.get("PG_BIN") else "psql"
    schema = "srv_%s_%d" % ("".join(c if c.isalnum() else "_" for c in name.lower()), os.getpid())
    subprocess.run([psql, "-q", "-X", "-v", "ON_ERROR_STOP=1", base, "-c",
                    "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s" % (schema, schema)],
                   check=True, stdout=subprocess.DEVNULL, timeout=60)
    return "%s%soptions=-csearch_path%%3D%s" % (base, "&" if "?" in base else "?", schema)


def pg_literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def pg_value(s):
    if s == "\\N":
        return None
    for conv in (int, float):
        try:
            return conv(s)
        except ValueError:
            pass
    return s


def pg_rows(url, sql, args=()):
    """serverlib's db() on PostgreSQL: the ?s replaced by literals (test
    values only), run by psql."""
    parts = sql.split("?")
    if len(parts) - 1 != len(args):
        raise ValueError("%d placeholders, %d values" % (len(parts) - 1, len(args)))
    text = parts[0] + "".join(pg_literal(a) + p for a, p in zip(args, parts[1:]))
    psql = os.path.join(os.environ["PG_BIN"], "psql") if os.environ.get("PG_BIN") else "psql"
    out = subprocess.run([psql, "-X", "-q", "-A", "-t", "-F", "\x1f", "-P", "null=\\N",
                          "-v", "ON_ERROR_STOP=1", url, "-c", text], check=True,
                         capture_output=True, timeout=60).stdout.decode()
    return [tuple(pg_value(v) for v in line.split("\x1f")) for line in out.splitlines() if line]


class Server:
    """One `attnjudge serve` process. conf: extra config keys; problems: the
    problems directory (default: the repository's). On PostgreSQL when
    ATTNJUDGE_TEST_PG_URL names a server (tests/pg/pglib.sh): each Server
    gets a schema of its own there (`database` in conf wins)."""

    def __init__(self, binary, tmp, name, conf=None, nofile=None, workers=2, problems=None):
        self.binary = binary
        self.dir = os.path.join(tmp, name)
        self.data = os.path.join(self.dir, "data")
        os.makedirs(self.dir, exist_ok=True)
        self.conf = {
            "submit_burst": 100000,
            "submit_rate_per_min": 1000000,
            "auth_burst": 100000,
            "auth_rate_per_min": 1000000,
            "access_log": os.path.join(self.dir, "access.log"),
            # benchmarks are tested on their own (benchmark.py): elsewhere an
            # accepted submission's timing would only compete with the tests
            "benchmark": "off",
            # the counterexample search likewise (search.py): a small budget
            # here keeps every accepted submission's verdict quick
            "search_budget_ms": 100,
            # argon2id at its least cost: at the interactive limits every
            # sign-up, sign-in and server start costs about 0.3 s of CPU,
            # which the suite paid thousands of times (lib.sh's server and
            # accounts.sh keep the default and check it)
            "password_hash_limits": "minimum",
        }
        self.conf.update(conf or {})
        pg = os.environ.get("ATTNJUDGE_TEST_PG_URL")
        if pg and "database" not in self.conf:
            self.conf["database"] = pg_schema_url(pg, name)
        self.nofile = nofile
        self.workers = workers
        self.problems = problems or os.path.join(ROOT, "problems")
        self.proc = None
        self.port = None

    def write_conf(self):
        path = os.path.join(self.dir, "serve.conf")
        with open(path, "w") as f:
            for k, v in self.conf.items():
                f.write("%s = %s\n" % (k, v))
        return path

    def add_user(self, name, password, role):
        """`attnjudge user add` before the start (the schema is created)."""
        subprocess.run([self.binary, "user", "add", name, "--role", role, "--data", self.data,
                        "--config", self.write_conf(), "--password-stdin"],
                       input=(password + "\n").encode(), check=True,
                       stdout=subprocess.DEVNULL, timeout=60)

    def start(self):
        path = self.write_conf()
        self.out = open(os.path.join(self.dir, "server.out"), "w")
        self.err_path = os.path.join(self.dir, "server.err")
        self.err = open(self.err_path, "a")
        limit = self.nofile

        def child():
            if limit:
                resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

        self.proc = subprocess.Popen(
            [self.binary, "serve", "--port", "0", "--data", self.data, "--problems",
             self.problems, "--reference", os.path.join(ROOT, "reference"),
             "--web", os.path.join(self.dir, "web"), "--workers", str(self.workers),
             "--config", path], stdout=self.out, stderr=self.err, preexec_fn=child)
        deadline = time.time() + 30
        while time.time() < deadline:
            text = open(os.path.join(self.dir, "server.out")).read()
            if "listening on http://" in text:
                self.port = int(text.split("listening on http://")[1].split("/")[0].split(":")[-1])
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError("the server did not start:\n" + self.log_tail())

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for f in ("out", "err"):
            if hasattr(self, f):
                getattr(self, f).close()
        # the caller's collected log (tests/server/run.sh checks it for
        # sanitizer reports)
        collect = os.environ.get("ATTNJUDGE_SERVER_ERR")
        if collect and hasattr(self, "err_path") and os.path.exists(self.err_path):
            with open(collect, "a") as out:
                out.write(open(self.err_path).read())

    def log_tail(self, n=20):
        try:
            return "\n".join(open(self.err_path).read().splitlines()[-n:])
        except OSError:
            return ""

    def log(self):
        return open(self.err_path).read()

    def status_kb(self, field):
        """VmRSS, VmHWM, ... of the server process, KiB."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    def open_fds(self):
        return len(os.listdir("/proc/%d/fd" % self.proc.pid))

    def db(self, sql, args=()):
        """Rows of sql (? placeholders) on the server's database: SQLite
        directly, PostgreSQL through psql (values as Python numbers where
        they look like one, NULL as None)."""
        url = self.conf.get("database", "")
        if url.startswith(("postgresql://", "postgres://")):
            return pg_rows(url, sql, args)
        con = sqlite3.connect(os.path.join(self.data, "attnjudge.db"), timeout=30)
        try:
            return con.execute(sql, args).fetchall()
        finally:
            con.close()

    def client(self, source_ip=None, timeout=None):
        return Client("127.0.0.1", self.port, source_ip, timeout)


class Worker:
    """One `attnjudge worker` process (a judge host, docs/operations.md) on
    srv's data directory and configuration, with threads judging workers."""

    def __init__(self, binary, srv, name, threads=1):
        self.log_path = os.path.join(srv.dir, "worker-%s.log" % name)
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [binary, "worker", "--data", srv.data, "--config",
             os.path.join(srv.dir, "serve.conf"), "--workers", str(threads),
             "--reference", os.path.join(ROOT, "reference")],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.name = wait_until(self._name, 30)

    def _name(self):
        for line in open(self.log_path):
            if "judge host " in line:
                return line.split("judge host ")[1].split()[0]
        return None

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log.close()
        collect = os.environ.get("ATTNJUDGE_SERVER_ERR")
        if collect:
            with open(collect, "a") as out:
                out.write(open(self.log_path).read())

    def text(self):
        return open(self.log_path).read()


class Client:
    """A keep-alive HTTP/1.1 connection with JSON helpers."""

    def __init__(self, host, port, source_ip=None, timeout=None):
        self.conn = http.client.HTTPConnection(
            host, port, timeout=timeout or HTTP_TIMEOUT_S, source_address=(source_ip, 0) if source_ip else None)
        self.token = None
        self.used = False  # a request has been answered on this connection

    def exchange(self, method, path, data=None, headers=None):
        """Sends one request (data: the body's bytes) and returns (the
        response, its body's bytes)."""
        try:
            self.conn.request(method, path, body=data, headers=headers or {})
            r = self.conn.getresponse()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            # The server closes a keep-alive connection after 30 s idle
            # (server/http.c), as every HTTP/1.1 server may; a client whose
            # previous request on it took long (an upload's check on a busy
            # machine) finds it closed. The request was never read: send it
            # again, once, on a new connection, as browsers do. A server
            # that died fails the second try too.
            if not self.used:
                raise
            self.conn.close()
            self.conn.request(method, path, body=data, headers=headers or {})
            r = self.conn.getresponse()
        self.used = True
        return r, r.read()

    def call(self, method, path, body=None, token=None, headers=None):
        """Returns (status, parsed JSON or None, response headers)."""
        h = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        tok = token or self.token
        if tok:
            h["Authorization"] = "Bearer " + tok
        h.update(headers or {})
        r, raw = self.exchange(method, path, data, h)
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return r.status, parsed, r

    def sign_up(self, name, password=None):
        password = password or name + "-password"
        self.call("POST", "/api/users", {"username": name, "password": password})
        return self.sign_in(name, password)

    def sign_in(self, name, password):
        st, body, _ = self.call("POST", "/api/sessions", {"username": name, "password": password})
        if st != 200:
            raise RuntimeError("sign in %s: %d %s" % (name, st, body))
        self.token = body["token"]
        return self.token

    def submit(self, slug, source):
        return self.call("POST", "/api/submissions", {"problem": slug, "source": source})

    def close(self):
        self.conn.close()


def source(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


# An accepted softmax-stable solution that sleeps 0.5 s before each test's
# call: a judgement of a few seconds, long enough to kill its host in the
# middle of it. A sleep, not a busy loop: CPU time on this kind of machine
# varies twofold from minute to minute, and a loop sized to take seconds
# came near the problem's 1 s CPU limit on a slow minute (time_limit).
SLOW_SOURCE = source("tests/submissions/softmax-stable/accepted/plain_float.c") + """
#include <time.h>
__attribute__((constructor)) static void slow_down(void)
{
    struct timespec half = {0, 500000000L};
    nanosleep(&half, NULL);
}
"""


def burst(client_for, users, jobs, prefix, accepted=(201, 202)):
    """Submissions from `users` students at once, one thread each: student
    k, signed up as prefix + "%02d" % k on client_for(k) before any thread
    starts, submits jobs(k), a list of (slug, source). Returns (ids,
    errors, t0): the ids of the answers with a status in `accepted`, the
    other statuses, and time.time() when the threads start. (Signing up is
    two argon2id hashes of ~64 MiB each: done at once by every student it
    measured the hashing, not the burst, and outlasted the clients' bound
    on a busy machine.)"""
    ids, errors, lock = [], [], threading.Lock()
    clients = []
    for k in range(users):
        cl = client_for(k)
        cl.sign_up("%s%02d" % (prefix, k))
        clients.append(cl)

    def student(k):
        cl = clients[k]
        for slug, text in jobs(k):
            st, body, _ = cl.submit(slug, text)
            with lock:
                (ids.append(body["id"]) if st in accepted else errors.append(st))
        cl.close()

    t0 = time.time()
    threads = [threading.Thread(target=student, args=(k,)) for k in range(users)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return ids, errors, t0


def submission(cl, sid):
    """GET /api/submissions/{sid}'s body through client cl, or None (not
    200, or the server ended the keep-alive connection: the next call
    reconnects)."""
    try:
        st, body, _ = cl.call("GET", "/api/submissions/%d" % sid)
    except (OSError, http.client.HTTPException):
        cl.conn.close()
        return None
    return body if st == 200 else None


def wait_until(pred, limit_s, step=0.1):
    """Polls pred() until it returns a true value or limit_s pass."""
    deadline = time.time() + limit_s
    while True:
        v = pred()
        if v or time.time() >= deadline:
            return v
        time.sleep(step)


def expect(rep, name, got, status, code=None):
    """got = (status, body, response): checks the status and the error code."""
    st, body, _ = got
    want = "%d %s" % (status, code or "")
    have = "%d %s" % (st, (body or {}).get("error", {}).get("code", "") if code else "")
    return rep.check("%s: %s" % (name, want.strip()), have == want, json.dumps(body)[:300])


def run_scenario(binary, name, run, problems=None, workers=1, conf=None, before_start=None,
                 instructor=True):
    """Runs run(srv, rep) against a fresh server with an instructor "prof"
    (password "prof-password"; none when instructor is false):
    problems(tmp) makes its problems directory,
    before_start(srv) prepares its data directory. A crash of the scenario
    is one failure; the server is always stopped and the temporary
    directory removed. Returns the exit status (0: everything passed)."""
    import shutil
    import tempfile
    import traceback
    rep = Report()
    tmp = tempfile.mkdtemp(prefix="attnjudge-%s." % name)
    # a server started as root runs as run_as, which must reach its data
    # directory by name (docs/operations.md)
    os.chmod(tmp, 0o711)
    srv = Server(binary, tmp, name, workers=workers, conf=conf,
                 problems=problems(tmp) if problems else None)
    try:
        if before_start:
            before_start(srv)
        if instructor:
            srv.add_user("prof", "prof-password", "instructor")
        srv.start()
        run(srv, rep)
    except Exception as e:  # noqa: BLE001 - a crash of the scenario is one failure
        traceback.print_exc()
        rep.check("%s scenario ran to the end" % name, False, repr(e))
    finally:
        srv.stop()
        if rep.failed:
            print("--- server log:\n" + srv.log_tail(30))
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()
