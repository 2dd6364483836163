"""Judge hosts (docs/operations.md, "Judge hosts"): a front end that judges
nothing (`serve --workers 0`) and three `attnjudge worker` processes on the
same data directory.

  python3 tests/server/workers.py BUILD/attnjudge

Shows: /healthz and /metrics without and with judge hosts; a burst of 60
submissions each judged exactly once and spread over the hosts; kill -9 of
a host in the middle of a judgement, and that submission judged by another
host once the lease runs out; a restart of the front end while the hosts
judge, taking nothing from them; a host stopped with SIGTERM leaving the
table. Only the pids started here are signalled; every wait is bounded.
"""
import os
import re
import signal
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import (HTTP_TIMEOUT_S, SLOW_SOURCE, Worker, burst, run_scenario, source,
                       wait_until)  # noqa: E402

SLUG = "softmax-stable"
LEASE_S = 3
# enough for every host to hold several judgements while the front end
# restarts; the 200 of the cluster's burst (tests/pg/cluster.py) only made
# this scenario four minutes long
BURST = 60
USERS = 20


def health(c):
    st, body, _ = c.call("GET", "/healthz")
    return st, body or {}


def run(srv, rep):
    binary = sys.argv[1]
    c = srv.client()
    st, body = health(c)
    rep.check("front end alone: /healthz 503 unavailable, no judge host alive",
              st == 503 and body.get("status") == "unavailable" and body.get("workers") == 0
              and body.get("judge_hosts") == [] and "no judge host" in
              body.get("error", {}).get("message", ""), str(body))

    workers = []
    try:
        workers = [Worker(binary, srv, str(i)) for i in range(3)]
        rep.check("three workers start, each a judge host of its own name",
                  all(w.name for w in workers) and len({w.name for w in workers}) == 3,
                  str([w.name for w in workers]))
        alive = wait_until(lambda: len(health(c)[1].get("judge_hosts", [])) == 3, 10)
        st, body = health(c)
        rep.check("with the hosts: /healthz 200 ok, three judge hosts with their workers",
                  alive and st == 200 and body.get("status") == "ok" and
                  sorted(h["name"] for h in body["judge_hosts"]) == sorted(w.name for w in workers)
                  and all(h["workers"] == 1 for h in body["judge_hosts"]), str(body))
        metrics = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % srv.port,
                                         timeout=HTTP_TIMEOUT_S).read().decode()
        rep.check("/metrics: attnjudge_judge_hosts 3 and each host's workers",
                  "attnjudge_judge_hosts 3\n" in metrics and
                  all('attnjudge_judge_host_workers{host="%s"} 1' % w.name in metrics
                      for w in workers), metrics[-600:])

        # a burst through the front end, from USERS users at once
        plain = source("tests/submissions/softmax-stable/accepted/plain_float.c")
        ids, errors, t0 = burst(lambda k: srv.client(), USERS,
                                lambda k: [(SLUG, plain)] * (BURST // USERS), "w")
        # the front end restarts in the middle of the burst's judging: it
        # must take back nothing the hosts hold
        rep.check("burst: %d submissions accepted by the front end" % BURST,
                  len(ids) == BURST and not errors, "errors %s" % errors[:5])
        wait_until(lambda: srv.db("SELECT count(*) FROM submissions WHERE status = 'judging'")
                   [0][0] > 0, 20, 0.05)
        srv.stop()
        srv.start()
        c = srv.client()
        done = wait_until(lambda: srv.db("SELECT count(*) FROM submissions WHERE status = 'done'")
                          [0][0] >= BURST, 600, 0.5)
        elapsed = time.time() - t0
        rows = srv.db("SELECT judgements, verdict, claimed_by FROM submissions")
        rep.check("burst: every submission judged, exactly once, accepted",
                  done and len(rows) == BURST and all(r[0] == 1 and r[1] == "accepted"
                                                      for r in rows),
                  "%s" % [r for r in rows if r[0] != 1 or r[1] != "accepted"][:5])
        by = {}
        for r in rows:
            by[r[2]] = by.get(r[2], 0) + 1
        rep.check("burst: the judgements are spread over the three hosts",
                  set(by) == {w.name for w in workers} and min(by.values()) >= BURST // 10,
                  str(by))
        # the front end judges nothing itself: its /metrics shows what each
        # host recorded with its heartbeat
        def host_counts(name):
            text = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % srv.port,
                                          timeout=HTTP_TIMEOUT_S).read().decode()
            return {m.group(1): int(m.group(2)) for m in re.finditer(
                r'^%s\{host="([^"]+)"(?:,verdict="accepted")?\} (\d+)$' % name, text, re.M)}
        counted = wait_until(lambda: host_counts("attnjudge_judge_host_judgements_total") == by,
                             15, 0.5)
        rep.check("/metrics of the front end: each host's accepted verdicts, as judged",
                  counted, "%s vs %s" % (host_counts("attnjudge_judge_host_judgements_total"), by))
        rep.check("/metrics of the front end: each host's judging-time histogram",
                  host_counts("attnjudge_judge_host_judge_seconds_count") == by,
                  str(host_counts("attnjudge_judge_host_judge_seconds_count")))
        rep.check("the front end's restart took back nothing the hosts held",
                  "queued again" not in srv.log(), srv.log_tail(5))
        print("# burst of %d through one front end, 3 judge hosts: %.1f s, %.1f judgements/s,"
              " per host %s" % (BURST, elapsed, BURST / elapsed, sorted(by.values())))

        # kill -9 of a host in the middle of a judgement
        for w in workers[1:]:
            w.stop()
        victim, rescuer = workers[0], None
        cl = srv.client()
        cl.sign_up("slowpoke")
        st, body, _ = cl.submit(SLUG, SLOW_SOURCE)
        sid = body["id"] if body else None
        held = wait_until(lambda: srv.db("SELECT status, claimed_by FROM submissions WHERE id = ?",
                                         (sid,))[0] == ("judging", victim.name), 30, 0.05)
        rep.check("a slow submission is being judged by the one host left", bool(held),
                  str(srv.db("SELECT status, claimed_by FROM submissions WHERE id = ?", (sid,))))
        rescuer = Worker(binary, srv, "rescuer")
        workers.append(rescuer)
        row = srv.db("SELECT status, claimed_by FROM submissions WHERE id = ?", (sid,))[0]
        rep.check("... and still in the middle of it when its host is killed",
                  row == ("judging", victim.name), str(row))
        killed_at = time.time()
        victim.proc.send_signal(signal.SIGKILL)
        victim.proc.wait(timeout=10)
        row = wait_until(lambda: (lambda r: r if r[0] == "done" else None)(
            srv.db("SELECT status, verdict, judgements, claimed_by FROM submissions WHERE id = ?",
                   (sid,))[0]), 60, 0.1)
        took = time.time() - killed_at
        rep.check("kill -9: the submission is judged by another host, once",
                  row and row[1] == "accepted" and row[2] == 1 and row[3] == rescuer.name,
                  str(row))
        rep.check("kill -9: it waited for the lease (%d s) and not much longer" % LEASE_S,
                  took >= LEASE_S - 1.5 and took < LEASE_S + 20, "%.1f s" % took)
        # any process's heartbeat may hand it back: the front end's too
        rep.check("kill -9: a heartbeat says the lease expired",
                  "lease expired" in rescuer.text() + srv.log(), rescuer.text()[-400:])
        print("# kill -9 of a judge host mid-judgement: verdict by another host %.1f s later"
              " (lease %d s)" % (took, LEASE_S))
        gone = wait_until(lambda: victim.name not in
                          [h["name"] for h in health(c)[1].get("judge_hosts", [])], 10)
        rep.check("the killed host drops out of /healthz after a lease", bool(gone))

        # SIGTERM: the host leaves the table at once
        rescuer.stop()
        st, body = health(c)
        rep.check("a host stopped with SIGTERM leaves: /healthz 503 with no judge host",
                  st == 503 and body.get("judge_hosts") == [], str(body))
        rep.check("... and its row is gone from the table",
                  srv.db("SELECT count(*) FROM judge_hosts WHERE name = ?",
                         (rescuer.name,))[0][0] == 0)
    finally:
        for w in workers:
            w.stop(signal.SIGKILL if w.proc.poll() is None else signal.SIGTERM)


def main():
    conf = {"lease_s": LEASE_S, "user_queue_max": 1000, "queue_max": 100000}
    return run_scenario(sys.argv[1], "workers", run, workers=0, conf=conf)


if __name__ == "__main__":
    sys.exit(main())
