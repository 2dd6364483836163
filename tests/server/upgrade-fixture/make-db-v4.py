"""Makes db-v4.sql: the database of a course run on attnjudge at commit
ca233d9 (schema version 4, before the course layer), dumped as SQL, for
tests/server/upgrade.py. Kept to show how the fixture was made; running it
needs that version's binary:

    git worktree add /tmp/old-attnjudge ca233d9 && make -C /tmp/old-attnjudge
    /usr/bin/python3 tests/server/upgrade-fixture/make-db-v4.py \\
        /tmp/old-attnjudge/build/attnjudge

The course: problems softmax-stable and layernorm from the problems
directory; an instructor (prof), three students (alice, bob, carol);
alice's accepted and bob's wrong softmax-stable, carol's accepted
layernorm; two hints opened by bob; a walkthrough date; a live session.
Passwords are "<name>-password".

packages.tar.gz beside it freezes those two packages (each with its
reference.c) as the database knows them, so that upgrade.py does not depend
on this tree's packages; it was made from the old tree with

    tar --sort=name --mtime='2026-01-01 00:00Z' --owner=0 --group=0 \
        --numeric-owner -cf - problems | gzip -n -9 > packages.tar.gz

after copying reference/<slug>.c into problems/<slug>/reference.c.
"""
import os
import shutil
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from serverlib import ROOT, Server, source, wait_until  # noqa: E402

SUBS = [("alice", "softmax-stable", "accepted/plain_float.c"),
        ("bob", "softmax-stable", "wrong_answer/max_init_zero.c"),
        ("carol", "layernorm", None)]


def main():
    binary = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="attnjudge-v4.")
    os.chmod(tmp, 0o711)
    problems = os.path.join(tmp, "problems")
    for slug in ("softmax-stable", "layernorm"):
        shutil.copytree(os.path.join(ROOT, "problems", slug), os.path.join(problems, slug))
    srv = Server(binary, tmp, "v4", workers=1, problems=problems)
    try:
        srv.add_user("prof", "prof-password", "instructor")
        srv.start()
        prof = srv.client()
        prof.sign_in("prof", "prof-password")
        for user, slug, rel in SUBS:
            c = srv.client()
            c.sign_up(user)
            if rel is None:
                rel = sorted(os.listdir(os.path.join(ROOT, "tests/submissions", slug, "accepted")))[0]
                rel = "accepted/" + rel
            st, body, _ = c.submit(slug, source("tests/submissions/%s/%s" % (slug, rel)))
            assert st == 202, (st, body)
            sid = body["id"]
            assert wait_until(lambda: c.call("GET", "/api/submissions/%d" % sid)[1]["status"]
                              == "done", 120, 0.2)
            if user == "bob":
                for n in (1, 2):
                    st, body, _ = c.call("POST", "/api/problems/softmax-stable/hints/%d" % n, {})
                    assert st == 200, (st, body)
        st, body, _ = prof.call("PUT", "/api/problems/layernorm/walkthrough",
                                {"opens_at": "2030-01-01T00:00:00Z"})
        assert st == 200, (st, body)
    finally:
        srv.stop()
    con = sqlite3.connect(os.path.join(srv.data, "attnjudge.db"))
    version = con.execute("SELECT max(version) FROM schema_version").fetchone()[0]
    assert version == 4, version
    with open(os.path.join(HERE, "db-v4.sql"), "w") as f:
        f.write("-- made by make-db-v4.py with attnjudge ca233d9 on %s\n"
                % time.strftime("%Y-%m-%d"))
        for line in con.iterdump():
            f.write(line + "\n")
    con.close()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
