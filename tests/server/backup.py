"""`attnjudge backup` on a live server, and the restore of
docs/operations.md "Backups":

- a burst of 30 submissions from five students (accepted and wrong
  sources), and while they are sent and judged, `attnjudge backup` five
  times (once with one page a step, so that the server's writes make it
  start again). Each copy: exit status 0, the summary line, mode 0600, no
  temporary file left, integrity_check ok, a schema version, one
  self-contained file (rollback journal, no WAL beside it), and every
  submission the server acknowledged (202 with an id) before the backup
  started is in it;
- `attnjudge backup --with-files` once more at the end of the burst: a tar
  archive of a checked copy, secret.key and problems/ (the same bytes as
  the data directory's);
- the restore: one copy with both judged and pending submissions goes into
  a fresh data directory with secret.key and problems/ (what the docs say
  to copy), and a server started on it serves: the students and the
  instructor sign in, the judged submissions read back with their verdicts
  and scores, and the ones that were queued or judging in the copy are
  judged after the start, each once, with the verdict their source earns.
  The same for the archive, extracted with tar into an empty directory;
- the errors: --help, an existing FILE without --force (refused, FILE
  unchanged) and with it (replaced), no database, FILE's directory
  missing, FILE being the database itself, a write that runs out of space
  (no FILE, no temporary file), usage errors; --with-files without a
  secret.key.

    python3 tests/server/backup.py BUILD_DIR/attnjudge
"""
import hashlib
import os
import re
import resource
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tarfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import Server, run_scenario, source, wait_until  # noqa: E402

SLUG = "softmax-stable"
SOURCES = {
    "accepted": source("tests/submissions/%s/accepted/plain_float.c" % SLUG),
    "wrong_answer": source("tests/submissions/%s/wrong_answer/sum_skips_last_column.c" % SLUG),
}
STUDENTS = ["ann", "ben", "cat", "dan", "eve"]
PER_STUDENT = 6
CONF = {"user_queue_max": 100}


def backup(binary, *args, **kw):
    """Runs `attnjudge backup ARGS`; returns the CompletedProcess."""
    return subprocess.run([binary, "backup"] + list(args), capture_output=True, text=True,
                          timeout=120, **kw)


def leftovers(directory):
    """Temporary files of a backup left in directory."""
    return [n for n in os.listdir(directory) if n.startswith(".") and ".tmp-" in n]


def open_copy(path):
    return sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=10)


def check_copy(rep, name, path, acked):
    """The checks every copy must pass; returns {id: (status, verdict,
    score)} of its submissions."""
    con = open_copy(path)
    try:
        integrity = con.execute("PRAGMA integrity_check").fetchall()
        rep.check("%s: integrity_check ok" % name, integrity == [("ok",)], repr(integrity[:3]))
        version = con.execute("SELECT max(version) FROM schema_version").fetchone()[0]
        rep.check("%s: schema_version is set" % name, isinstance(version, int) and version >= 1,
                  repr(version))
        mode = con.execute("PRAGMA journal_mode").fetchone()[0]
        rep.check("%s: one self-contained file (journal_mode %s)" % (name, mode), mode == "delete"
                  and not os.path.exists(path + "-wal"))
        rows = {r[0]: r[1:] for r in con.execute(
            "SELECT id, status, verdict, score FROM submissions")}
    finally:
        con.close()
    missing = sorted(set(acked) - set(rows))
    rep.check("%s: all %d submissions acknowledged before it are in it (it has %d)"
              % (name, len(acked), len(rows)), not missing, "missing %s" % missing[:10])
    st = os.stat(path)
    rep.check("%s: mode 0600" % name, stat.S_IMODE(st.st_mode) == 0o600, oct(st.st_mode))
    rep.check("%s: no temporary file left" % name, not leftovers(os.path.dirname(path)),
              repr(leftovers(os.path.dirname(path))))
    return rows


def errors(srv, rep, tmp):
    """The command's refusals and failures, against the running server's
    data directory."""
    b = srv.binary
    out = os.path.join(tmp, "errors")
    os.makedirs(out)
    r = backup(b, "--help")
    rep.check("--help: exit 0 and the usage", r.returncode == 0 and "usage: attnjudge backup"
              in r.stdout and "--force" in r.stdout, r.stdout + r.stderr)
    r = backup(b, "--data", srv.data)
    rep.check("no FILE: exit 2 and the usage", r.returncode == 2 and "usage" in r.stderr, r.stderr)
    r = backup(b, "--no-such-option", "--data", srv.data, os.path.join(out, "x.db"))
    rep.check("an unknown option: exit 2", r.returncode == 2, r.stderr)
    r = backup(b, "--step-pages", "0", "--data", srv.data, os.path.join(out, "x.db"))
    rep.check("--step-pages 0: exit 2", r.returncode == 2, r.stderr)

    first = os.path.join(out, "first.db")
    r = backup(b, "--data", srv.data, first)
    rep.check("a first copy: exit 0", r.returncode == 0 and os.path.exists(first), r.stderr)
    digest = hashlib.sha256(open(first, "rb").read()).hexdigest()
    r = backup(b, "--data", srv.data, first)
    rep.check("an existing FILE without --force: exit 1, 'exists'", r.returncode == 1
              and "exists" in r.stderr and "--force" in r.stderr, r.stdout + r.stderr)
    rep.check("... and FILE is unchanged", hashlib.sha256(open(first, "rb").read()).hexdigest()
              == digest)
    with open(first, "ab") as f:
        f.write(b"not a database any more")
    r = backup(b, "--data", srv.data, "--force", first)
    con = open_copy(first)
    ok = con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    con.close()
    rep.check("--force replaces FILE with a good copy", r.returncode == 0 and ok, r.stderr)

    conf = os.path.join(out, "backup.conf")
    with open(conf, "w") as f:
        f.write("# only data matters to backup\ndata = %s\nworkers = 1\n" % srv.data)
    r = backup(b, "--config", conf, os.path.join(out, "from-config.db"))
    rep.check("--config FILE finds the data directory", r.returncode == 0, r.stderr)
    r = backup(b, "--config", conf, "--data", srv.data, os.path.join(out, "both.db"))
    rep.check("--config and --data together: exit 2", r.returncode == 2, r.stderr)

    empty = os.path.join(out, "empty-data")
    os.makedirs(empty)
    r = backup(b, "--data", empty, os.path.join(out, "none.db"))
    rep.check("no database there: exit 1, 'no database'", r.returncode == 1
              and "no database" in r.stderr and not os.path.exists(os.path.join(out, "none.db"))
              and not os.path.exists(os.path.join(empty, "attnjudge.db")), r.stderr)
    r = backup(b, "--data", srv.data, os.path.join(out, "no-such-dir", "x.db"))
    rep.check("FILE's directory missing: exit 1, 'does not exist'", r.returncode == 1
              and "does not exist" in r.stderr, r.stderr)
    db = os.path.join(srv.data, "attnjudge.db")
    r = backup(b, "--data", srv.data, "--force", db)
    rep.check("FILE is the database itself: exit 1, refused", r.returncode == 1
              and "database itself" in r.stderr, r.stderr)
    rep.check("... and the live database still answers", srv.client().call(
        "GET", "/healthz")[0] == 200)

    bare = os.path.join(out, "bare-data")
    subprocess.run([b, "user", "add", "someone", "--role", "student", "--data", bare,
                    "--password-stdin"], input="someone-password\n", text=True, check=True,
                   capture_output=True, timeout=60)
    r = backup(b, "--data", bare, "--with-files", os.path.join(out, "bare.tar"))
    rep.check("--with-files without a secret.key: exit 1, 'secret.key'", r.returncode == 1
              and "secret.key" in r.stderr and not os.path.exists(os.path.join(out, "bare.tar"))
              and not leftovers(out), r.stderr)
    r = backup(b, "--data", srv.data, "--with-files", first)
    rep.check("--with-files and an existing FILE without --force: exit 1", r.returncode == 1
              and "exists" in r.stderr, r.stderr)

    def small_files():
        # a file may not grow past 40 KiB: the copy runs out of room
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (40960, 40960))

    full = os.path.join(out, "full.db")
    r = backup(b, "--data", srv.data, full, preexec_fn=small_files)
    rep.check("out of space while writing: exit 1, a message naming FILE", r.returncode == 1
              and full in r.stderr, r.stderr)
    rep.check("... no FILE and no temporary file left", not os.path.exists(full)
              and not leftovers(out), repr(os.listdir(out)))


def submitter(srv, name, n, acked, lock, problems):
    """Signs in as name and sends n submissions, alternating accepted and
    wrong sources; records each acknowledged one as (id, kind)."""
    c = srv.client()
    try:
        c.sign_in(name, name + "-password")
        for i in range(n):
            kind = "accepted" if i % 2 == 0 else "wrong_answer"
            for _ in range(50):
                st, body, _ = c.submit(SLUG, SOURCES[kind])
                if st in (201, 202) and body and isinstance(body.get("id"), int):
                    with lock:
                        acked[body["id"]] = kind
                    break
                time.sleep(0.2)
            else:
                problems.append("%s: submission %d never accepted (%d %s)" % (name, i, st, body))
            time.sleep(0.1)
    except Exception as e:  # noqa: BLE001 - reported by the main thread
        problems.append("%s: %r" % (name, e))
    finally:
        c.close()


def restore(srv, copy, tmp):
    """docs/operations.md "Backups", the restore: a fresh data directory
    with the copy as attnjudge.db, secret.key and problems/."""
    new = Server(srv.binary, tmp, "restored", conf=CONF, workers=2)
    os.makedirs(new.data, mode=0o700)
    shutil.copyfile(copy, os.path.join(new.data, "attnjudge.db"))
    os.chmod(os.path.join(new.data, "attnjudge.db"), 0o600)
    shutil.copy2(os.path.join(srv.data, "secret.key"), os.path.join(new.data, "secret.key"))
    shutil.copytree(os.path.join(srv.data, "problems"), os.path.join(new.data, "problems"),
                    symlinks=True)
    con = sqlite3.connect(os.path.join(new.data, "attnjudge.db"))
    ok = con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    con.close()
    return new, ok


def run(srv, rep):
    tmp = os.path.dirname(srv.dir)
    for name in STUDENTS:
        c = srv.client()
        c.sign_up(name)
        c.close()
    errors(srv, rep, tmp)

    out = os.path.join(tmp, "backups")
    os.makedirs(out)
    acked, lock, problems = {}, threading.Lock(), []
    threads = [threading.Thread(target=submitter, args=(srv, n, PER_STUDENT, acked, lock,
                                                        problems)) for n in STUDENTS]
    for t in threads:
        t.start()
    copies = []  # (path, ids acknowledged before it started, its summary line)
    for i in range(5):
        if i == 4:
            # the last copy once the burst is in and a few verdicts are
            # recorded, so that it holds judged and pending submissions
            for t in threads:
                t.join(timeout=120)
            wait_until(lambda: srv.db("SELECT count(*) FROM submissions WHERE status = 'done'")
                       [0][0] >= 5, 120, 0.2)
        else:
            time.sleep(0.4)
        with lock:
            before = list(acked)
        path = os.path.join(out, "copy-%d.db" % i)
        extra = ["--step-pages", "1"] if i == 1 else []
        r = backup(srv.binary, "--data", srv.data, *extra, path)
        rep.check("backup %d during the burst (%d acknowledged): exit 0" % (i, len(before)),
                  r.returncode == 0, r.stdout + r.stderr)
        print("     " + r.stdout.strip(), flush=True)
        rep.check("backup %d: the summary line" % i, re.search(
            r"^copied .* \(\d+ bytes, \d+ ms\): schema version \d+, users \d+, submissions \d+ "
            r"\(queued or judging \d+\); integrity ok", r.stdout) is not None, r.stdout)
        if r.returncode == 0:
            copies.append((path, before, r.stdout))
    with lock:
        before_archive = list(acked)
    archive = os.path.join(out, "all.tar")
    r = backup(srv.binary, "--data", srv.data, "--with-files", archive)
    rep.check("backup --with-files: exit 0", r.returncode == 0, r.stdout + r.stderr)
    print("     " + r.stdout.strip(), flush=True)
    rep.check("backup --with-files: the summary line", re.search(
        r"^archived .* with .*/secret.key and \d+ files of .*/problems/ to .* \(\d+ bytes, \d+ ms\)"
        r": schema version \d+, users \d+, submissions \d+ \(queued or judging \d+\); "
        r"integrity ok", r.stdout) is not None, r.stdout)
    for t in threads:
        t.join(timeout=120)
    archive_rows = check_archive(srv, rep, archive, before_archive, tmp)
    rep.check("the burst: %d submissions acknowledged" % len(acked), len(acked)
              == len(STUDENTS) * PER_STUDENT and not problems, "; ".join(problems[:5]))

    chosen = None
    for i, (path, before, _) in enumerate(copies):
        rows = check_copy(rep, "copy %d" % i, path, before)
        done = sum(1 for v in rows.values() if v[0] == "done")
        pending = sum(1 for v in rows.values() if v[0] in ("queued", "judging"))
        if done and pending and (chosen is None or i > chosen[0]):
            chosen = (i, path, rows)
    rep.check("a copy holds both judged and pending submissions", chosen is not None)
    if not chosen:
        return
    # the live server is done with: stop it (the restore does not need its
    # data directory any more than for secret.key and problems/)
    srv.stop()

    index, path, rows = chosen
    new, ok = restore(srv, path, tmp)
    rep.check("restore: the copy passes integrity_check in its new place", ok)
    serve_restored(new, rep, rows, acked, "copy %d" % index)

    if archive_rows:
        new = Server(srv.binary, tmp, "restored-tar", conf=CONF, workers=2)
        os.makedirs(new.data, mode=0o700)
        r = subprocess.run(["tar", "-xpf", archive, "-C", new.data], capture_output=True,
                           text=True, timeout=120)
        rep.check("restore from the archive: tar -xpf into an empty directory", r.returncode == 0,
                  r.stderr)
        serve_restored(new, rep, archive_rows, acked, "the archive")


def check_archive(srv, rep, archive, acked, tmp):
    """The --with-files archive: its database passes the copies' checks,
    secret.key and problems/ are the data directory's bytes. Returns the
    submissions of its database (None if it is not there)."""
    if not os.path.exists(archive):
        return None
    look = os.path.join(tmp, "archive-look")
    os.makedirs(look)
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(look, **safe)
    rep.check("archive: attnjudge.db first, then secret.key, then problems/",
              names[:3] == ["attnjudge.db", "secret.key", "problems"], repr(names[:4]))
    rows = check_copy(rep, "archive's database", os.path.join(look, "attnjudge.db"), acked)
    same_key = open(os.path.join(look, "secret.key"), "rb").read() == open(
        os.path.join(srv.data, "secret.key"), "rb").read()
    rep.check("archive: secret.key is the deployment's", same_key)

    def files(root):
        found = {}
        for d, _, fs in os.walk(root):
            for f in fs:
                p = os.path.join(d, f)
                found[os.path.relpath(p, root)] = hashlib.sha256(open(p, "rb").read()).digest()
        return found
    live, packed = files(os.path.join(srv.data, "problems")), files(os.path.join(look, "problems"))
    rep.check("archive: problems/ holds every file of the data directory's (%d), the same bytes"
              % len(live), live and packed == live, "%d vs %d" % (len(packed), len(live)))
    return rows


def serve_restored(new, rep, rows, acked, label):
    try:
        new.start()
        restored_checks(new, rep, rows, acked, label)
    finally:
        new.stop()
        if rep.failed:
            print("--- restored server's log:\n" + new.log_tail(30))


def restored_checks(new, rep, rows, acked, label):
    tag = "restored (%s): " % label
    prof = new.client()
    try:
        prof.sign_in("prof", "prof-password")
        rep.check(tag + "the instructor signs in", True)
    except RuntimeError as e:
        rep.check(tag + "the instructor signs in", False, str(e))
    clients = {}
    for name in STUDENTS:
        c = new.client()
        try:
            c.sign_in(name, name + "-password")
            clients[name] = c
        except RuntimeError as e:
            rep.check(tag + "%s signs in" % name, False, str(e))
    rep.check(tag + "every student signs in", len(clients) == len(STUDENTS))
    judged = {i: v for i, v in rows.items() if v[0] == "done"}
    pending = {i: v for i, v in rows.items() if v[0] in ("queued", "judging")}

    def view(sid):
        st, body, _ = prof.call("GET", "/api/submissions/%d" % sid)
        return body if st == 200 else None

    same = []
    for sid, (_, verdict, score) in judged.items():
        body = view(sid) or {}
        if body.get("verdict") == verdict and abs((body.get("score") or 0) - (score or 0)) < 1e-9:
            same.append(sid)
    rep.check(tag + "the %d judged submissions read back with their verdicts and scores"
              % len(judged), len(same) == len(judged),
              "differ: %s" % sorted(set(judged) - set(same))[:10])

    def all_done():
        got = new.db("SELECT count(*) FROM submissions WHERE status = 'done'")[0][0]
        return got == len(rows)
    finished = wait_until(all_done, 300, 0.5)
    rep.check(tag + "the %d submissions queued or judging in the copy are judged"
              % len(pending), finished,
              repr(new.db("SELECT status, count(*) FROM submissions GROUP BY status")))
    verdicts = dict(new.db("SELECT id, verdict FROM submissions"))
    wrong = {sid: (verdicts.get(sid), acked.get(sid)) for sid in pending
             if verdicts.get(sid) != acked.get(sid)}
    rep.check(tag + "each earned its source's verdict", not wrong, repr(wrong)[:400])
    twice = new.db("SELECT id, judgements FROM submissions WHERE judgements <> 1")
    rep.check(tag + "every submission judged exactly once", not twice, repr(twice[:10]))
    rep.check(tag + "nothing more, nothing less than the copy",
              set(verdicts) == set(rows), "%d vs %d" % (len(verdicts), len(rows)))
    name = STUDENTS[0]
    if name in clients:
        # a new connection: the server closes one idle for 30 s, as the
        # first may have been while the judging was awaited
        c = new.client()
        c.sign_in(name, name + "-password")
        st, body, _ = c.call("GET", "/api/submissions?limit=100")
        c.close()
        listed = {x["id"] for x in (body or {}).get("submissions", [])}
        own = {r[0] for r in new.db("SELECT s.id FROM submissions s JOIN users u"
                                    " ON u.id = s.user_id WHERE u.username = ?", (name,))}
        rep.check(tag + "%s's list shows exactly their %d submissions" % (name, len(own)),
                  st == 200 and own and listed == own, repr(body)[:300])

def main():
    return run_scenario(sys.argv[1], "backup", run, workers=2, conf=CONF)


if __name__ == "__main__":
    sys.exit(main())
