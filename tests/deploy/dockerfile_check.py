#!/usr/bin/env python3
"""Static checks of deploy/Dockerfile (there is no docker daemon to build it
with on the machines that run the tests). Prints "ok ..." / "FAIL ..." lines,
one per check; tests/deploy/run.sh counts them.

    tests/deploy/dockerfile_check.py ROOT ATTNJUDGE_BINARY

What is checked: the two stages and their bases, that every COPY source is a
tracked file or directory and that every directory the Makefile compiles is
copied, that the build stage uses scripts/deps.sh and `make install`, that
the run stage's packages are the run-time halves of deps.sh's build packages
(as apt-cache knows them) plus the compiler the judge runs and nothing of
the build, the run_as user, the config the image makes (each rewrite hits a
line of deploy/attnjudge.conf, and the result is a valid config for the
binary), VOLUME, EXPOSE and HEALTHCHECK against that config, and ENTRYPOINT
against the systemd unit's ExecStart.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT, BINARY = sys.argv[1], sys.argv[2]
results = []


def check(name, cond, detail=""):
    """detail: what went wrong, shown on failure"""
    results.append((bool(cond), name + (f" ({detail})" if detail and not cond else "")))


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def instructions(text):
    """(INSTRUCTION, argument) pairs, continuation lines joined, comments
    dropped."""
    out, cur = [], ""
    for line in text.splitlines():
        s = line.strip()
        if not cur and (not s or s.startswith("#")):
            continue
        if cur and s.startswith("#"):
            continue
        if s.endswith("\\"):
            cur += s[:-1] + " "
            continue
        cur += s
        word, _, rest = cur.partition(" ")
        out.append((word.upper(), rest.strip()))
        cur = ""
    return out


def tracked(path):
    # safe.directory: the test may run as another user than the clone's owner
    r = subprocess.run(["git", "-c", "safe.directory=*", "-C", ROOT, "ls-files", "--", path],
                       capture_output=True, text=True)
    return r.returncode == 0 and r.stdout.strip() != ""


def apt_depends(pkg):
    r = subprocess.run(["apt-cache", "depends", "--no-recommends", "--no-suggests",
                        "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", pkg],
                       capture_output=True, text=True)
    return [l.split(":", 1)[1].strip() for l in r.stdout.splitlines()
            if l.strip().startswith("Depends:")]


def apt_known(pkg):
    r = subprocess.run(["apt-cache", "show", "--no-all-versions", pkg], capture_output=True,
                       text=True)
    return r.returncode == 0 and "Package:" in r.stdout


df = instructions(read("deploy/Dockerfile"))
stages, stage = [], None
for ins, arg in df:
    if ins == "FROM":
        stage = {"from": arg, "ins": []}
        stages.append(stage)
    elif stage is not None:
        stage["ins"].append((ins, arg))

# --- stages
check("two stages: FROM debian:bookworm AS build, then FROM debian:bookworm-slim",
      len(stages) == 2 and stages[0]["from"] == "debian:bookworm AS build"
      and stages[1]["from"] == "debian:bookworm-slim",
      "; ".join(s["from"] for s in stages))
build, run = (stages + [{"ins": []}, {"ins": []}])[:2]


def runs(st):
    return " ; ".join(a for i, a in st["ins"] if i == "RUN")


# --- COPY sources
missing, copied = [], set()
for st in stages:
    for ins, arg in st["ins"]:
        if ins != "COPY" or arg.startswith("--from"):
            continue
        parts = shlex.split(arg)
        for src in parts[:-1]:
            copied.add(src.rstrip("/"))
            if not tracked(src):
                missing.append(src)
check("every COPY source is tracked in the repository", not missing, " ".join(missing))
compiled = set(re.findall(r"\$\(wildcard ([a-z]+)/\*\.c\)", read("Makefile")))
compiled.discard("tests")
need = compiled | {"Makefile", "problems", "reference", "web/src"}
check("the build stage copies what make needs: " + " ".join(sorted(need)),
      need <= copied, "missing: " + " ".join(sorted(need - copied)))
check("the build stage installs scripts/deps.sh's build packages and runs make install",
      "sh scripts/deps.sh build" in runs(build) and "make install DESTDIR=/out" in runs(build))
check("the run stage takes the installed tree from the build stage",
      ("COPY", "--from=build /out/usr/local /usr/local") in run["ins"])

# --- run-time packages
m = re.search(r"apt-get install -y --no-install-recommends (.*?)(?:&&|$)", runs(run))
run_pkgs = set(m.group(1).split()) if m else set()
deps = read("scripts/deps.sh")
build_pkgs = re.search(r'^build="([^"]*)"', deps, re.M).group(1).split()
no_runtime = []
for dev in (p for p in build_pkgs if p.endswith("-dev") and p != "libc6-dev"):
    libs = [d for d in apt_depends(dev) if d.startswith("lib") and not d.endswith("-dev")
            and not d.startswith("<")]
    if not libs or not set(libs) & run_pkgs:
        no_runtime.append(f"{dev} -> {'/'.join(libs) or '?'}")
check("the run stage has the run-time half of every -dev package of deps.sh build",
      m and not no_runtime, "; ".join(no_runtime))
check("the run stage has gcc and libc6-dev (submissions are compiled and linked statically)",
      {"gcc", "libc6-dev"} <= run_pkgs)
leftovers = sorted((run_pkgs & set(build_pkgs)) - {"gcc", "libc6-dev"}
                   | {p for p in run_pkgs if p.endswith("-dev") and p != "libc6-dev"}
                   | (run_pkgs & {"nodejs", "npm", "make", "pkg-config"}))
check("nothing of the build in the run stage (make, pkg-config, -dev headers, node)",
      not leftovers, " ".join(leftovers))
unknown = sorted(p for p in run_pkgs if not apt_known(p))
check(f"apt knows every run-stage package ({len(run_pkgs)})", run_pkgs and not unknown,
      " ".join(unknown))

# --- the run_as user
conf_text = read("deploy/attnjudge.conf")
conf = dict(re.findall(r"^([a-z_]+) = ?(.*)$", conf_text, re.M))
check(f"the run stage creates run_as ({conf.get('run_as')}) as a system user without a shell",
      re.search(r"useradd --system .*--shell /usr/sbin/nologin " + re.escape(conf["run_as"]),
                runs(run)))
check("no USER line: the server starts as root and drops to run_as itself",
      not any(i == "USER" for i, _ in run["ins"]))

# --- the config the image makes
exprs = re.findall(r"-e '(s\|\^([a-z_]+) = \.\*\|\2 = [^|]*\|)'", runs(run))
rendered, unchanged = conf_text, []
for expr, key in exprs:
    pat, rep = expr[2:-1].split("|", 1)
    new, n = re.subn(pat.replace(".*", ".*$"), rep, rendered, flags=re.M)
    if n != 1:
        unchanged.append(key)
    rendered = new
check(f"each of the {len(exprs)} config rewrites of the image hits one line of "
      "deploy/attnjudge.conf", exprs and not unchanged, " ".join(unchanged))
count = re.search(r'grep -cE .*\)" = (\d+)', runs(run))
check("the image's own check counts every rewrite",
      count and int(count.group(1)) == len(exprs))
with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
    f.write(rendered)
r = subprocess.run([BINARY, "serve", "--config", f.name, "--help"], capture_output=True,
                   text=True)
os.unlink(f.name)
check("the image's config is valid for attnjudge serve", r.returncode == 0,
      r.stderr.strip()[:200])
img = dict(re.findall(r"^([a-z_]+) = ?(.*)$", rendered, re.M))
share = re.search(r"^SHARE := \$\(DESTDIR\)(\S+)$", read("Makefile"), re.M)
check("its problems, reference and web are where make install puts them (under "
      f"{share.group(1) if share else '?'})",
      share and all(img[k] == f"{share.group(1)}/{k}" for k in ("problems", "reference", "web")),
      share.group(1) if share else "no SHARE in the Makefile")
check("the data directory is the VOLUME, and made for run_as with mode 0700",
      ("VOLUME", img["data"]) in run["ins"]
      and f"install -d -m 0700 -o {conf['run_as']} -g {conf['run_as']} {img['data']}"
      in runs(run))
check("it listens on every address of the container, on the EXPOSEd port",
      img["bind"] == "0.0.0.0" and ("EXPOSE", img["port"]) in run["ins"])
hc = " ".join(a for i, a in run["ins"] if i == "HEALTHCHECK")
check("HEALTHCHECK asks /healthz on that port",
      f"http://127.0.0.1:{img['port']}/healthz" in hc and "curl -f" in hc)

# --- the command
ep = [json.loads(a) for i, a in run["ins"] if i == "ENTRYPOINT"]
unit = read("deploy/attnjudge.service")
exec_start = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1).split()
check("ENTRYPOINT is the systemd unit's ExecStart: " + " ".join(exec_start),
      ep and ep[-1] == exec_start,
      " ".join(ep[-1]) if ep else "none")

for good, text in results:
    print(("ok " if good else "FAIL ") + text)
