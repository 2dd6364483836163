"""attnjudge migrate --to (docs/operations.md, "Moving up to PostgreSQL"):
a course on SQLite, copied into PostgreSQL, served from there.

- a server on SQLite gets an instructor, three students and their judged
  submissions (accepted and wrong), and is stopped;
- `attnjudge migrate --data DIR --to URL` copies it; a second run into the
  same database is refused (it holds a course now), as are a source with a
  table this program does not know and a destination that is no
  PostgreSQL URL;
- a server on the PostgreSQL database, with the same data directory, has
  every submission with its id, verdict and score, still knows the
  students' sessions and passwords, and judges a new submission under an id
  after the copied ones;
- the documented PostgreSQL backup (docs/operations.md, "Backups"):
  pg_dump -Fc of that database, pg_restore into a new one, and a server on
  the restored copy has the same submissions and judges a new one.

    python3 tests/pg/migrate.py BUILD_DIR/attnjudge

Needs the environment of tests/pg/pglib.sh's pg_start (PG_URL, PG_BIN);
tests/pg/run.sh runs it. Only the pids it starts are signalled.
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "server"))
from serverlib import Report, Server, pg_schema_url, source, wait_until  # noqa: E402

SLUG = "softmax-stable"
GOOD = source("tests/submissions/%s/accepted/plain_float.c" % SLUG)
WRONG_DIR = os.path.join(HERE, "..", "submissions", SLUG, "wrong_answer")
WRONG = source("tests/submissions/%s/wrong_answer/%s" % (SLUG, sorted(os.listdir(WRONG_DIR))[0]))
QUERY = "SELECT id, user_id, verdict, score, status FROM submissions ORDER BY id"


def migrate(binary, *args):
    r = subprocess.run([binary, "migrate"] + list(args), capture_output=True, timeout=300)
    return r.returncode, r.stdout.decode() + r.stderr.decode()


def normal(rows):
    """Rows as comparable tuples (scores as floats)."""
    return [tuple(float(v) if isinstance(v, (int, float)) and i == 3 else v
                  for i, v in enumerate(r)) for r in rows]


def pg_tool(name, *args):
    r = subprocess.run([os.path.join(os.environ["PG_BIN"], name)] + list(args),
                       capture_output=True, timeout=300)
    return r.returncode, (r.stdout + r.stderr).decode()


def dump_and_restore(binary, tmp, rep, url, data, rows):
    """docs/operations.md's pg_dump / pg_restore, once, and a server on the
    copy."""
    base, _, query = url.partition("?")
    schema = query.split("search_path%3D")[1]
    dump = os.path.join(tmp, "attnjudge.dump")
    code, out = pg_tool("pg_dump", "-Fc", "-n", schema, "-f", dump, base)
    rep.check("pg_dump -Fc of the course", code == 0 and os.path.getsize(dump) > 0, out[-300:])
    code, out = pg_tool("createdb", "-h", "127.0.0.1", "-p", base.rsplit(":", 1)[1].split("/")[0],
                        "-U", "attnjudge", "attnjudge_restored")
    restored = base.rsplit("/", 1)[0] + "/attnjudge_restored"
    code2, out2 = pg_tool("pg_restore", "--no-owner", "-d", restored, dump)
    rep.check("createdb and pg_restore into a new database", code == 0 and code2 == 0,
              (out + out2)[-300:])
    srv = Server(binary, tmp, "restored", workers=1,
                 conf={"database": restored + "?options=-csearch_path%3D" + schema})
    srv.data = data
    try:
        srv.start()
        rep.check("a server on the restored copy: the same submissions",
                  normal(srv.db(QUERY)) == rows, "%s != %s" % (srv.db(QUERY), rows))
        c = srv.client()
        c.sign_in("cy", "cy-password")
        st, body, _ = c.submit(SLUG, GOOD)
        new_id = body.get("id") if body else None
        v = wait_until(lambda: (lambda r: r if r and r[0][0] == "done" else None)(
            srv.db("SELECT status, verdict FROM submissions WHERE id = ?", (new_id,))), 120)
        rep.check("... which judges a new submission, after the restored ids",
                  st == 202 and new_id > rows[-1][0] and bool(v) and v[0][1] == "accepted",
                  "%s %s" % (body, v))
    finally:
        srv.stop()


def run(binary, tmp, rep):
    src = Server(binary, tmp, "on-sqlite", workers=1)
    src.conf["database"] = "sqlite:" + os.path.join(src.data, "attnjudge.db")
    dst = None
    try:
        src.add_user("prof", "prof-password", "instructor")
        src.start()
        tokens = {}
        for name in ("ann", "bob", "cy"):
            c = src.client()
            tokens[name] = c.sign_up(name)
            for text in (GOOD, WRONG):
                st, body, _ = c.submit(SLUG, text)
                rep.check("on SQLite: %s submits (202)" % name, st == 202, str(body))
        done = wait_until(lambda: src.db("SELECT count(*) FROM submissions WHERE status = 'done'")
                          [0][0] == 6, 120)
        rep.check("on SQLite: six submissions judged", bool(done))
        before = normal(src.db(QUERY))
        users = src.db("SELECT id, username, role FROM users ORDER BY id")
        src.stop()

        url = pg_schema_url(os.environ["PG_URL"], "migrated")
        code, out = migrate(binary, "--data", src.data, "--to", url)
        rep.check("migrate --to: exit 0, every table counted",
                  code == 0 and "submissions" in out and "6 rows" in out and "done in" in out,
                  out[-600:])
        rep.check("... and the URL (with its password) is not printed back", url not in out)
        code, out = migrate(binary, "--data", src.data, "--to", url)
        rep.check("a second migrate into the same database is refused (exit 1)",
                  code == 1 and "already holds a course" in out, out[-300:])
        code, out = migrate(binary, "--data", src.data, "--to", "sqlite:/tmp/x.db")
        rep.check("--to must be PostgreSQL (exit 2)", code == 2, out[-300:])
        odd = os.path.join(tmp, "odd.db")
        shutil.copy(os.path.join(src.data, "attnjudge.db"), odd)
        con = sqlite3.connect(odd)
        con.execute("CREATE TABLE extra(x)")
        con.commit()
        con.close()
        code, out = migrate(binary, "--from", odd, "--to", pg_schema_url(os.environ["PG_URL"],
                                                                         "odd"))
        rep.check("a source with a table this program does not know is refused (exit 1)",
                  code == 1 and "does not know: extra" in out, out[-300:])

        dst = Server(binary, tmp, "on-pg", workers=1, conf={"database": url})
        dst.data = src.data  # the same secret.key and problem versions
        dst.start()
        rep.check("on PostgreSQL: the same submissions, ids, verdicts and scores",
                  normal(dst.db(QUERY)) == before, "%s != %s" % (dst.db(QUERY), before))
        rep.check("on PostgreSQL: the same users with their ids",
                  dst.db("SELECT id, username, role FROM users ORDER BY id") == users)
        c = dst.client()
        st, body, _ = c.call("GET", "/api/me", token=tokens["ann"])
        rep.check("a session of the SQLite days still signs ann in",
                  st == 200 and body.get("username") == "ann", str(body))
        c.sign_in("bob", "bob-password")
        bob = [u[0] for u in users if u[1] == "bob"][0]
        mine = [r for r in before if r[1] == bob][-1]
        st, body, _ = c.call("GET", "/api/submissions/%d" % mine[0])
        rep.check("bob signs in with his password and sees his judged submission",
                  st == 200 and body.get("verdict") == mine[2], str(body)[:300])
        st, body, _ = c.submit(SLUG, GOOD)
        new_id = body.get("id") if body else None
        rep.check("a new submission gets an id after the copied ones",
                  st == 202 and new_id and new_id > before[-1][0], str(body))
        v = wait_until(lambda: (lambda r: r if r and r[0][0] == "done" else None)(
            dst.db("SELECT status, verdict FROM submissions WHERE id = ?", (new_id,))), 120)
        rep.check("... and is judged on PostgreSQL", bool(v) and v[0][1] == "accepted", str(v))
        after = normal(dst.db(QUERY))
        dst.stop()
        dump_and_restore(binary, tmp, rep, url, src.data, after)
    finally:
        src.stop()
        if dst:
            dst.stop()


def main():
    binary = sys.argv[1]
    rep = Report()
    tmp = tempfile.mkdtemp(prefix="attnjudge-migrate.")
    os.chmod(tmp, 0o711)  # a root server runs as run_as, which must reach it
    try:
        run(binary, tmp, rep)
    except Exception as e:  # noqa: BLE001 - a crash of the scenario is one failure
        import traceback
        traceback.print_exc()
        rep.check("the migrate scenario ran to the end", False, repr(e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rep.summary()


if __name__ == "__main__":
    sys.exit(main())
