#!/usr/bin/env bash
# Speed figures of `attnjudge serve` (issue 3, item 9):
#   1. wrk against GET /healthz and GET /api/problems: requests/s and p99;
#   2. a burst of 200 submissions from 20 concurrent clients: judgements/s,
#      p50 and p99 submit-to-verdict, compared with the target
#      0.8 x cores / mean single-judgement time (no per-user limit here);
#   3. the load of issue 7 (tests/server/load.py): 1,000 submissions from 50
#      clients of 10 users under the default per-user limit, honouring 429:
#      none lost, none judged twice, peak RSS, p50/p99 of the GET endpoints;
#   4. capacity with judge hosts (tests/server/capacity.py): judgements per
#      minute of the seed problems with 1 and 2 `attnjudge worker` processes.
#
#   tests/server/bench.sh [BUILD_DIR]       (default: build)
#   env: BENCH_DURATION (wrk seconds, 10), BENCH_SUBMISSIONS (200),
#        BENCH_CLIENTS (20); load.py's BENCH_LOAD_* (see there)
#
# The server runs on a kernel-chosen loopback port with a temporary data
# directory; only its pid is signalled.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
BIN="$BUILD/attnjudge"
SLUG=mha-fused-qkv
DUR=${BENCH_DURATION:-10}
NSUB=${BENCH_SUBMISSIONS:-200}
NCLI=${BENCH_CLIENTS:-20}
TMP=$(mktemp -d /tmp/attnjudge-bench.XXXXXX)
chmod 711 "$TMP" # a root server runs as run_as, which must reach $TMP/data
PID=""

cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -TERM "$PID" 2>/dev/null
        for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$PID" 2>/dev/null
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT

command -v wrk >/dev/null || { echo "bench: wrk is missing (apt-get install wrk)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "bench: $BIN is missing (run make)" >&2; exit 1; }
SOURCE=$(ls "$ROOT/tests/submissions/$SLUG/accepted/"*.c 2>/dev/null | head -1)
[ -n "$SOURCE" ] || SOURCE="$ROOT/reference/$SLUG.c"

cat >"$TMP/bench.conf" <<EOF
queue_max = 100000
user_queue_max = 100000
submit_burst = 100000
submit_rate_per_min = 1000000
auth_burst = 100000
auth_rate_per_min = 1000000
access_log = $TMP/access.log
${BENCH_WORKERS:+workers = $BENCH_WORKERS}
benchmark = off
EOF
"$BIN" serve --port 0 --data "$TMP/data" --problems "$ROOT/problems" \
    --reference "$ROOT/reference" --config "$TMP/bench.conf" >"$TMP/out" 2>"$TMP/err" &
PID=$!
port=""
for _ in $(seq 150); do
    port=$(grep -o ':[0-9]\+/' "$TMP/out" | head -1 | tr -d :/)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "bench: the server did not start" >&2; cat "$TMP/err" >&2; exit 1; }
URL="http://127.0.0.1:$port"
CORES=$(nproc)
echo "bench: attnjudge serve at $URL, $CORES CPUs, $(sed -n 's/.*(\(.*\)).*/\1/p' "$TMP/out")"

wrk_run() { # wrk_run PATH
    wrk -t2 -c64 -d"${DUR}s" --latency "$URL$1" >"$TMP/wrk.txt" 2>&1
    local rps p99 non2xx
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$TMP/wrk.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$TMP/wrk.txt")
    non2xx=$(awk '/Non-2xx/ {print $NF}' "$TMP/wrk.txt")
    printf 'bench: GET %-14s %10s requests/s   p99 %8s   non-2xx %s\n' "$1" "$rps" "$p99" "${non2xx:-0}"
    echo "${rps:-0}" >"$TMP/rps"
}
wrk_run /healthz
H_RPS=$(cat "$TMP/rps")
wrk_run /api/problems

/usr/bin/python3 - "$URL" "$SOURCE" "$SLUG" "$NSUB" "$NCLI" "$CORES" "$TMP/data/attnjudge.db" \
    "${H_RPS:-0}" <<'EOF'
import json, sqlite3, statistics, sys, threading, time, urllib.request

url, source_path, slug, nsub, ncli, cores, dbpath, h_rps = sys.argv[1:9]
nsub, ncli, cores, h_rps = int(nsub), int(ncli), int(cores), float(h_rps)
source = open(source_path, encoding="utf-8").read()
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

def call(method, path, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    with opener.open(req, timeout=60) as r:
        return r.status, json.loads(r.read() or b"null")

def signup(name):
    call("POST", "/api/users", {"username": name, "password": name + "-password"})
    return call("POST", "/api/sessions", {"username": name, "password": name + "-password"})[1]["token"]

def wait_done(ids, limit_s):
    con = sqlite3.connect(dbpath, timeout=30)
    deadline = time.time() + limit_s
    q = "SELECT count(*) FROM submissions WHERE status = 'done' AND id IN (%s)" % ",".join(map(str, ids))
    while time.time() < deadline:
        if con.execute(q).fetchone()[0] == len(ids):
            return con
        time.sleep(0.2)
    raise SystemExit("bench: submissions not judged in time")

# Mean single-judgement time: one at a time, nothing else running.
solo = signup("solo")
ids = []
for _ in range(5):
    ids.append(call("POST", "/api/submissions", {"problem": slug, "source": source}, solo)[1]["id"])
    con = wait_done(ids[-1:], 120)
rows = con.execute("SELECT judged_at - started_at, verdict FROM submissions WHERE id IN (%s)"
                   % ",".join(map(str, ids))).fetchall()
single_ms = statistics.mean(r[0] for r in rows)
print("bench: single judgement (%s): mean %.0f ms over %d runs, verdict %s"
      % (slug, single_ms, len(rows), rows[0][1]))

tokens = [signup("client%02d" % i) for i in range(ncli)]
per = [nsub // ncli + (1 if i < nsub % ncli else 0) for i in range(ncli)]
burst_ids, lock, errors = [], threading.Lock(), []
submit_ms = []

def client(i):
    for _ in range(per[i]):
        t0 = time.time()
        try:
            st, body = call("POST", "/api/submissions", {"problem": slug, "source": source}, tokens[i])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(str(e))
            continue
        with lock:
            submit_ms.append((time.time() - t0) * 1000)
            burst_ids.append(body["id"])

t_start = time.time()
threads = [threading.Thread(target=client, args=(i,)) for i in range(ncli)]
for t in threads:
    t.start()
for t in threads:
    t.join()
t_submitted = time.time()
con = wait_done(burst_ids, 60 + nsub * single_ms / 1000.0 * 3)
rows = con.execute("SELECT created_at, judged_at FROM submissions WHERE id IN (%s)"
                   % ",".join(map(str, burst_ids))).fetchall()
first = min(r[0] for r in rows)
last = min(r[0] for r in rows), max(r[1] for r in rows)
span_s = (last[1] - first) / 1000.0
lat = sorted(r[1] - r[0] for r in rows)
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
rate = len(rows) / span_s
target = 0.8 * cores / (single_ms / 1000.0)
print("bench: burst of %d submissions from %d clients: all answered 202 in %.2f s "
      "(submit p50 %.1f ms, p99 %.1f ms)%s"
      % (len(burst_ids), ncli, t_submitted - t_start, statistics.median(submit_ms),
         sorted(submit_ms)[int(0.99 * (len(submit_ms) - 1))],
         "" if not errors else ", %d errors" % len(errors)))
print("bench: judging throughput %.2f judgements/s; submit-to-verdict p50 %.1f s, p99 %.1f s"
      % (rate, p(0.50) / 1000.0, p(0.99) / 1000.0))
print("bench: target >= 0.8 x %d cores / %.3f s = %.2f judgements/s: %s"
      % (cores, single_ms / 1000.0, target, "met" if rate >= target else "NOT met"))
print("bench: /healthz target >= 20000 requests/s on 2 cores: %s (%.0f)"
      % ("met" if h_rps >= 20000 else "NOT met", h_rps))
EOF

# The load runs against a server of its own, with the default limits.
kill -TERM "$PID" 2>/dev/null
for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
echo "bench: load with the fair queue (tests/server/load.py)"
/usr/bin/python3 "$ROOT/tests/server/load.py" "$BIN"
echo "bench: capacity with judge hosts (tests/server/capacity.py)"
/usr/bin/python3 "$ROOT/tests/server/capacity.py" "$BIN"
