#!/usr/bin/python3
"""Checks of the repository itself: no judge runs.

    tests/check-repo.py citations         every citation names a document in the repository
    tests/check-repo.py layers BUILD_DIR  the libraries reference nothing of the layers above
    tests/check-repo.py shape             no file over its size, no include circle in a folder

citations: the repository is self-contained. No tracked file refers to the
documents that used to live outside it (SPEC, PITFALLS, STYLE.md); every
`docs/NAME` a tracked file names exists; every `docs/NAME.md §N.M` names a
numbered heading of that file ("## N. ..." or "### N.M ..."). A first check
runs the same rules on a small tree with one mistake of each kind, so that a
rule which stopped matching anything is seen.

layers: the dependency arrows of docs/architecture.md point down only
(cli -> server -> judge -> sandbox). `nm` on the archives of BUILD_DIR:
libsandbox.a references no SQLite, libpq, libmicrohttpd or jansson symbol
and nothing that libjudge.a or libserver.a defines; libjudge.a no SQLite, libpq or
libmicrohttpd symbol and nothing that libserver.a defines. libserver.a must
reference SQLite and libmicrohttpd, which shows that the symbol listing works.

shape: the house keeps its rooms. No C file in cli/, server/, judge/,
sandbox/ or util/ is over 800 lines, and no test source (tests/: C, Python,
shell, JavaScript) over 1,000: a feature that would break this splits the
file first, along its jobs. In each of those folders, a module is a .c file
with its header of the same name and its private header, if it has one
(NAME_impl.h: the layout its own files share); module A uses module B when
one of A's files includes one of B's headers. No two modules of one folder use each other, directly
or around a longer loop, except the documented backend table (db.c over
db_sqlite.c and db_pg.c, docs/architecture.md). A first check runs the
rules on a small tree with one long file and one circle.

One line per check ("ok   ..." or "FAIL ..."), then "N passed, N failed";
exit status 1 if a check failed, 2 on usage errors.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SELF = os.path.relpath(os.path.abspath(__file__), ROOT)

# Names of the retired outside documents, as whole words. (This file names
# them to find them, and is itself exempt.)
OUTSIDE = re.compile(r"\b(?:SPEC|PITFALLS)\b|\bSTYLE\.md\b")
# A docs/ path that starts a word (not the tail of a URL or a longer path),
# and the section numbers that follow it: "docs/x.md §3.2", "docs/x.md §1.1,
# §1.3".
DOC_CITE = re.compile(r"(?<![\w./-])docs/([A-Za-z0-9_.-]*[A-Za-z0-9_-])"
                      r"((?:(?:,\s*|\s+and\s+|\s+)§\d+(?:\.\d+)*)*)")
SECTION = re.compile(r"§(\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?(?:\s|$)")

# Undefined-symbol prefixes of the libraries a layer must not use.
# (the database: SQLite and libpq, whose functions are PQ*)
SQLITE, MHD, JANSSON = ("sqlite3_", "PQ"), ("MHD_",), ("json_", "jansson_")


def tracked_files(root):
    """Files under version control, or every file when root is no git
    checkout (a tarball, or the self-check's tree)."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout
        if out:
            return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, subdirs, names in os.walk(root):
        subdirs[:] = [s for s in subdirs if not s.startswith(".") and s != "node_modules"
                      and not s.startswith("build")]
        files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(files)


def read_text(root, rel):
    """The file's text, or None for a binary or unreadable file."""
    try:
        with open(os.path.join(root, rel), "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", "replace")


def headings(root, rel, cache):
    """The section numbers of a Markdown file's numbered headings."""
    if rel not in cache:
        nums = set()
        text = read_text(root, rel) or ""
        for line in text.splitlines():
            m = HEADING.match(line)
            if m:
                nums.add(m.group(1))
        cache[rel] = nums
    return cache[rel]


def citation_problems(root, files):
    """Three lists of "file:line: ..." findings: outside documents cited,
    docs/ files that do not exist, sections that do not exist."""
    outside, missing, sections = [], [], []
    cache = {}
    for rel in files:
        if rel == SELF:
            continue
        text = read_text(root, rel)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            where = "%s:%d" % (rel, n)
            for m in OUTSIDE.finditer(line):
                outside.append("%s: %s" % (where, m.group(0)))
            for m in DOC_CITE.finditer(line):
                doc = "docs/" + m.group(1)
                if not os.path.exists(os.path.join(root, doc)):
                    missing.append("%s: %s" % (where, doc))
                    continue
                for num in SECTION.findall(m.group(2)):
                    if num not in headings(root, doc, cache):
                        sections.append("%s: %s §%s" % (where, doc, num))
    return outside, missing, sections


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, details=()):
        if ok:
            self.passed += 1
            print("ok   " + what, flush=True)
            return
        self.failed += 1
        print("FAIL " + what, flush=True)
        for d in list(details)[:50]:
            print("       " + d, flush=True)

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed), flush=True)
        return 1 if self.failed else 0


def self_check(c):
    """The rules find one planted mistake of each kind in a small tree."""
    with tempfile.TemporaryDirectory(prefix="attnjudge-check-repo.") as tree:
        os.mkdir(os.path.join(tree, "docs"))
        with open(os.path.join(tree, "docs", "real.md"), "w") as f:
            f.write("# Real\n\n## 1. One\n\n### 1.2 One point two\n")
        with open(os.path.join(tree, "good.c"), "w") as f:
            f.write("/* as docs/real.md §1 and docs/real.md §1, §1.2 say */\n")
        with open(os.path.join(tree, "bad.c"), "w") as f:
            f.write("/* as " + "SP" + "EC §1 says */\n"
                    "/* see docs/gone.md */\n"
                    "/* as docs/real.md §1.2, §7 say */\n")
        outside, missing, sections = citation_problems(tree, tracked_files(tree))
        c.check(outside == ["bad.c:1: " + "SP" + "EC"] and missing == ["bad.c:2: docs/gone.md"]
                and sections == ["bad.c:3: docs/real.md §7"],
                "the citation rules find a planted mistake of each kind, and only those",
                outside + missing + sections)


def citations():
    c = Checks()
    self_check(c)
    files = tracked_files(ROOT)
    outside, missing, sections = citation_problems(ROOT, files)
    c.check(not outside, "no tracked file cites a document outside the repository "
            "(%d files read)" % len(files), outside)
    c.check(not missing, "every docs/ file cited exists", missing)
    c.check(not sections, "every docs/ section cited (§N) exists", sections)
    return c.finish()


def symbols(archive, *flags):
    """The symbol names nm prints for an archive with flags, or None."""
    try:
        out = subprocess.run(["nm", "--format=posix", *flags, archive], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    names = set()
    for line in out.splitlines():
        parts = line.split()
        # "name type [value size]"; member headers end with ":" (or "]:")
        if len(parts) >= 2 and not line.endswith(":"):
            names.add(parts[0])
    return names


def layers(build):
    c = Checks()
    libs = {}
    for name in ("sandbox", "judge", "server"):
        path = os.path.join(build, "lib%s.a" % name)
        undefined = symbols(path, "--undefined-only")
        defined = symbols(path, "--defined-only", "--extern-only")
        c.check(undefined is not None and defined is not None, "nm reads %s" % path)
        libs[name] = (undefined or set(), defined or set())

    def uses(layer, prefixes):
        return sorted(s for s in libs[layer][0] if s.startswith(prefixes))

    def upward(layer, above):
        return sorted(libs[layer][0] & set().union(*(libs[a][1] for a in above)))

    c.check(uses("server", SQLITE) and uses("server", MHD),
            "libserver.a references SQLite and libmicrohttpd (the listing sees them)")
    c.check(not uses("sandbox", SQLITE + MHD + JANSSON),
            "libsandbox.a references no SQLite, libpq, libmicrohttpd or jansson symbol",
            uses("sandbox", SQLITE + MHD + JANSSON))
    c.check(not upward("sandbox", ("judge", "server")),
            "libsandbox.a references nothing libjudge.a or libserver.a defines",
            upward("sandbox", ("judge", "server")))
    c.check(not uses("judge", SQLITE + MHD),
            "libjudge.a references no SQLite, libpq or libmicrohttpd symbol",
            uses("judge", SQLITE + MHD))
    c.check(not upward("judge", ("server",)), "libjudge.a references nothing libserver.a defines",
            upward("judge", ("server",)))
    return c.finish()


CODE_DIRS = ("cli", "server", "judge", "sandbox", "util")
CODE_MAX_LINES = 800
TEST_MAX_LINES = 1000
TEST_SOURCE = re.compile(r"\.(?:c|h|py|sh|mjs|js)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# The one allowed circle: the database factory and its backends, as in
# SQLite's os.c over os_unix.c (docs/architecture.md, "The store").
BACKEND_TABLES = ({"server/db", "server/db_sqlite", "server/db_pg"},)


def long_files(root, files):
    """(path, lines) of each file over its limit."""
    out = []
    for rel in files:
        top = rel.split("/", 1)[0]
        if top in CODE_DIRS and rel.endswith(".c"):
            limit = CODE_MAX_LINES
        elif top == "tests" and TEST_SOURCE.search(rel):
            limit = TEST_MAX_LINES
        else:
            continue
        n = (read_text(root, rel) or "").count("\n")
        if n > limit:
            out.append("%s: %d lines (at most %d)" % (rel, n, limit))
    return out


def module_of(path):
    """The module a .c or .h file belongs to: its path without the
    extension, and without "_impl" for a private header."""
    stem = path[:-2]
    return stem[:-len("_impl")] if stem.endswith("_impl") else stem


def module_circles(root, files):
    """Each loop of modules (a .c with its .h and _impl.h) within one
    folder, as a sorted list of module names, but the allowed backend
    tables."""
    present = set(files)
    uses = {}
    for rel in files:
        folder, name = os.path.split(rel)
        if folder not in CODE_DIRS or not rel.endswith((".c", ".h")):
            continue
        module = module_of(rel)
        for inc in INCLUDE.findall(read_text(root, rel) or ""):
            # includes are written from the root ("server/db.h") or, rarely,
            # beside the file ("db.h")
            target = inc if inc in present else os.path.join(folder, inc)
            if target not in present or not target.endswith(".h"):
                continue
            other = module_of(target)
            if os.path.dirname(other) == folder and other != module:
                uses.setdefault(module, set()).add(other)
    # Tarjan's strongly connected components: every loop lies inside one
    index, low, stack, on_stack, loops = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in uses.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1 and not any(component <= t for t in BACKEND_TABLES):
                loops.append(sorted(component))

    for v in sorted(uses):
        if v not in index:
            visit(v)
    return sorted(loops)


def shape_self_check(c):
    """The rules find a planted long file and a planted circle, and only those."""
    with tempfile.TemporaryDirectory(prefix="attnjudge-check-repo.") as tree:
        for d in ("judge", "server", "tests"):
            os.mkdir(os.path.join(tree, d))
        planted = {
            "judge/long.c": "int x;\n" * (CODE_MAX_LINES + 1),
            "judge/short.c": "int y;\n" * CODE_MAX_LINES,
            "tests/long_test.py": "x = 1\n" * (TEST_MAX_LINES + 1),
            "judge/a.c": '#include "judge/a.h"\n#include "judge/b.h"\n',
            "judge/a.h": "",
            "judge/b.c": '#include "judge/c.h"\n',
            "judge/b.h": "",
            "judge/c.c": "",
            "judge/c.h": '#include "judge/a.h"\n',
            "judge/d.c": '#include "judge/d_impl.h"\n',
            "judge/d_impl.h": '#include "judge/d.h"\n',
            "judge/d.h": "",
            "server/db.c": '#include "server/db_pg.h"\n',
            "server/db.h": "",
            "server/db_pg.c": '#include "server/db.h"\n',
            "server/db_pg.h": "",
        }
        for rel, text in planted.items():
            with open(os.path.join(tree, rel), "w") as f:
                f.write(text)
        files = sorted(planted)
        longs = long_files(tree, files)
        c.check(longs == ["judge/long.c: 801 lines (at most 800)",
                          "tests/long_test.py: 1001 lines (at most 1000)"],
                "the size rule finds a planted long file of each kind, and only those", longs)
        loops = module_circles(tree, files)
        c.check(loops == [["judge/a", "judge/b", "judge/c"]],
                "the circle rule finds a planted loop of three, and lets a private header and the backend table be",
                [" -> ".join(l) for l in loops])


def shape():
    c = Checks()
    shape_self_check(c)
    files = tracked_files(ROOT)
    longs = long_files(ROOT, files)
    c.check(not longs, "no C file in %s over %d lines, no test source over %d"
            % ("/, ".join(CODE_DIRS) + "/", CODE_MAX_LINES, TEST_MAX_LINES), longs)
    loops = module_circles(ROOT, files)
    c.check(not loops, "no two modules of one folder include each other's headers, "
            "directly or around a loop (but the database's backend table)",
            [" <-> ".join(l) for l in loops])
    return c.finish()


def main():
    args = sys.argv[1:]
    if args == ["citations"]:
        return citations()
    if args == ["shape"]:
        return shape()
    if len(args) == 2 and args[0] == "layers":
        return layers(args[1])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
