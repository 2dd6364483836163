"""Load figures of `attnjudge serve` (issue 7, item 8), printed by make bench:
1,000 submissions from 50 concurrent clients of 10 users, with the default
per-user limit (user_queue_max = 2): a client that gets 429 waits the
Retry-After it is given and tries again, and after a 202 polls its
submission until the verdict, as the web UI does (the clients are asyncio
tasks on keep-alive connections). A prober in a process of its own meanwhile
reads the GET endpoints every 100 ms, so its latencies are the server's and
not the clients' scheduling. Reported: none lost, none judged twice (checked
in the database), the server's peak RSS (VmHWM), and p50/p99 of every GET
endpoint under that load.

Most submissions are a cheap compile error (the judge's fastest path); a
share (BENCH_LOAD_ACCEPTED, default 0.05) is a correct solution judged on
every test, to keep the run within a couple of minutes on 2 cores.

    python3 tests/server/load.py BUILD_DIR/attnjudge
    env: BENCH_LOAD_SUBMISSIONS (1000), BENCH_LOAD_CLIENTS (50),
         BENCH_LOAD_USERS (10), BENCH_LOAD_ACCEPTED (0.05), BENCH_WORKERS
"""
import asyncio
import json
import multiprocessing
import os
import queue
import shutil
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import Client, Server, raise_own_nofile, source  # noqa: E402

SLUG = "mha-fused-qkv"


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.lat = {}  # endpoint -> [ms]
        self.counts = {}

    def add(self, name, ms):
        with self.lock:
            self.lat.setdefault(name, []).append(ms)

    def count(self, name):
        with self.lock:
            self.counts[name] = self.counts.get(name, 0) + 1


def timed(stats, name, client, method, path, body=None):
    t0 = time.monotonic()
    st, data, r = client.call(method, path, body)
    stats.add(name, (time.monotonic() - t0) * 1000)
    return st, data, r


def main():
    binary = sys.argv[1]
    n_sub = int(os.environ.get("BENCH_LOAD_SUBMISSIONS", 1000))
    n_cli = int(os.environ.get("BENCH_LOAD_CLIENTS", 50))
    n_users = int(os.environ.get("BENCH_LOAD_USERS", 10))
    share = float(os.environ.get("BENCH_LOAD_ACCEPTED", 0.05))
    workers = int(os.environ.get("BENCH_WORKERS", 0)) or os.cpu_count()
    raise_own_nofile()
    tmp = tempfile.mkdtemp(prefix="attnjudge-load.")
    # a server started as root runs as run_as, which must reach its data
    # directory by name (docs/operations.md)
    os.chmod(tmp, 0o711)
    srv = Server(binary, tmp, "load", {"access_log": "off"}, workers=workers)
    try:
        srv.start()
        return run(srv, n_sub, n_cli, n_users, share, workers)
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


async def http_call(conn, port, method, path, token, body=None):
    """One request on an asyncio keep-alive connection (conn: [reader,
    writer] or [None, None]); returns (status, JSON, headers)."""
    if conn[0] is None:
        conn[0], conn[1] = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode() if body is not None else b""
    head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n" % (
        method, path, token)
    if body is not None:
        head += "Content-Type: application/json\r\n"
    head += "Content-Length: %d\r\n\r\n" % len(data)
    conn[1].write(head.encode() + data)
    await conn[1].drain()
    status_line = await conn[0].readline()
    headers = {}
    while True:
        line = await conn[0].readline()
        if line in (b"\r\n", b""):
            break
        k, _, v = line.decode().partition(":")
        headers[k.strip().lower()] = v.strip()
    raw = await conn[0].readexactly(int(headers.get("content-length", 0)))
    if headers.get("connection", "").lower() == "close":
        conn[1].close()
        conn[0] = conn[1] = None
    return int(status_line.split()[1]), json.loads(raw) if raw else None, headers


def probe(port, token, stop, out):
    """Separate process: the public GET endpoints every 100 ms, timed
    without the clients' scheduling in the way."""
    stats = Stats()
    c = Client("127.0.0.1", port, timeout=60)
    c.token = token
    paths = ["/healthz", "/api/problems", "/api/problems/" + SLUG, "/api/leaderboard/" + SLUG,
             "/api/submissions?mine=1&limit=20"]
    while not stop.is_set():
        for p in paths:
            timed(stats, "GET " + p.replace(SLUG, "{slug}").split("&")[0], c, "GET", p)
        time.sleep(0.1)
    out.put(stats.lat)


def run(srv, n_sub, n_cli, n_users, share, workers):
    good = source("tests/submissions/%s/accepted/plain_float.c" % SLUG)
    bad = source("tests/submissions/%s/compile_error/w_o_declared_int.c" % SLUG)
    tokens = []
    for u in range(n_users):
        c = srv.client()
        tokens.append(c.sign_up("load%02d" % u))
        c.close()
    per = [n_sub // n_cli + (1 if i < n_sub % n_cli else 0) for i in range(n_cli)]
    stats = Stats()
    acked, errors = [], []
    rss = [0]
    hwm_start = srv.status_kb("VmHWM")  # start-up's peak, before any load

    async def client(i):
        conn, tok = [None, None], tokens[i % n_users]
        for k in range(per[i]):
            src = good if (i * 7919 + k) % 1000 < share * 1000 else bad
            sid = None
            for _attempt in range(2000):  # bounded: 429s until a place frees up
                t0 = time.monotonic()
                try:
                    st, body, hdr = await http_call(conn, srv.port, "POST", "/api/submissions",
                                                    tok, {"problem": SLUG, "source": src})
                except (OSError, asyncio.IncompleteReadError) as e:
                    errors.append(repr(e))
                    conn[0] = conn[1] = None
                    await asyncio.sleep(1)
                    continue
                stats.add("POST /api/submissions", (time.monotonic() - t0) * 1000)
                if st == 202:
                    sid = body["id"]
                    acked.append(sid)
                    break
                if st in (429, 503):
                    stats.count("%d %s" % (st, body["error"]["code"]))
                    await asyncio.sleep(float(hdr.get("retry-after", 1)))
                    continue
                errors.append("%d %s" % (st, body))
                break
            if sid is None:
                continue
            while True:  # poll the verdict like the web UI
                t0 = time.monotonic()
                st, sub, _ = await http_call(conn, srv.port, "GET", "/api/submissions/%d" % sid,
                                             tok)
                stats.add("GET /api/submissions/{id} (clients)", (time.monotonic() - t0) * 1000)
                if st != 200 or sub["status"] == "done":
                    break
                await asyncio.sleep(0.3)
        if conn[1]:
            conn[1].close()

    async def sample_rss(done):
        while not done.is_set():
            rss[0] = max(rss[0], srv.status_kb("VmRSS"))
            await asyncio.sleep(0.2)

    async def all_clients():
        done = asyncio.Event()
        sampler = asyncio.ensure_future(sample_rss(done))
        await asyncio.gather(*(client(i) for i in range(n_cli)))
        done.set()
        await sampler

    ctx = multiprocessing.get_context("fork")
    stop, out = ctx.Event(), ctx.Queue()
    prober = ctx.Process(target=probe, args=(srv.port, tokens[0], stop, out))
    prober.start()
    t0 = time.time()
    try:
        asyncio.run(all_clients())
    finally:
        wall = time.time() - t0
        stop.set()
        try:
            for k, v in out.get(timeout=60).items():
                stats.lat[k] = v
        except queue.Empty:
            errors.append("the prober reported nothing")
        prober.join(timeout=30)
        if prober.is_alive():
            prober.kill()
            prober.join()

    rows = srv.db("SELECT id, status, judgements FROM submissions")
    by_id = {r[0]: r for r in rows}
    lost = [i for i in acked if i not in by_id or by_id[i][1] != "done"]
    twice = [r[0] for r in rows if r[2] != 1]
    phantom = [r[0] for r in rows if r[0] not in set(acked)]
    verdicts = srv.db("SELECT verdict, count(*) FROM submissions GROUP BY verdict")
    hwm = srv.status_kb("VmHWM")
    print("bench: load: %d submissions from %d clients of %d users (user_queue_max 2, %d workers) "
          "in %.1f s: %.1f judgements/s" % (len(acked), n_cli, n_users, workers, wall,
                                            len(acked) / wall))
    print("bench: load: verdicts %s; 429/503 answers %s; client errors %d%s"
          % (dict(verdicts), stats.counts, len(errors), (" (%s)" % errors[0]) if errors else ""))
    print("bench: load: lost %d, judged more than once or never %d, unacknowledged rows %d: %s"
          % (len(lost), len(twice), len(phantom),
             "none lost, none judged twice" if not (lost or twice or phantom) else "PROBLEM"))
    print("bench: load: server peak RSS during the load %.1f MiB (highest VmRSS sampled every "
          "0.2 s); VmHWM %.1f MiB (%.1f MiB before the load: start-up's own peak)"
          % (rss[0] / 1024, hwm / 1024, hwm_start / 1024))
    for name in sorted(stats.lat):
        v = stats.lat[name]
        print("bench: load: %-40s n %5d   p50 %7.1f ms   p99 %7.1f ms   max %7.1f ms"
              % (name, len(v), statistics.median(v), pct(v, 0.99), max(v)))
    return 0 if not (lost or twice or phantom or errors) else 1


if __name__ == "__main__":
    sys.exit(main())
