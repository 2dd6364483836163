#!/usr/bin/python3
"""Static checks of deploy/compose.yaml (no docker daemon on the machines
that run the tests). Prints "ok ..." / "FAIL ..." lines, one per check;
tests/deploy/run.sh counts them. Debian's python3-yaml parses the file.

    tests/deploy/compose_check.py ROOT

What is checked: the services (PostgreSQL 15, a front end with workers 0,
two judge hosts), that the image is deploy/Dockerfile's and the judge
hosts run the worker unit's command, that every `--set` key is a setting
of deploy/attnjudge.conf and every attnjudge container names the same
database (the db service's user and database), the shared data volume at
the image's VOLUME, the sandbox's security options, a stop grace longer
than shutdown_grace_s, the port on loopback only, and that no judge host
waits for the front end's health (with workers 0 the front end is healthy
only once a judge host is alive: that would never start).
"""
import os
import re
import sys

import yaml

ROOT = sys.argv[1]
results = []


def check(name, cond, detail=""):
    results.append((bool(cond), name + (f" ({detail})" if detail and not cond else "")))


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


compose = yaml.safe_load(read("deploy/compose.yaml"))
services = compose.get("services", {})
dockerfile = read("deploy/Dockerfile")
conf = read("deploy/attnjudge.conf")
worker_unit = read("deploy/attnjudge-worker@.service")

check("services: db, web, judge1, judge2", sorted(services) == ["db", "judge1", "judge2", "web"],
      str(sorted(services)))
db, web = services.get("db", {}), services.get("web", {})
judges = [services.get("judge1", {}), services.get("judge2", {})]
attn = [web] + judges

check("the database is PostgreSQL 15", str(db.get("image", "")).startswith("postgres:15"),
      db.get("image"))
build = web.get("build", {})
check("the front end is built from deploy/Dockerfile at the repository's root",
      build.get("context") == ".." and build.get("dockerfile") == "deploy/Dockerfile" and
      os.path.exists(os.path.join(ROOT, "deploy", build.get("context", "x"),
                                  build.get("dockerfile", "x"))), str(build))
check("every attnjudge container runs that one image",
      len({s.get("image") for s in attn}) == 1 and web.get("image"), str([s.get("image") for s in attn]))

exec_start = re.search(r"^ExecStart=(.*)$", worker_unit, re.M).group(1).split()
check("the judge hosts run the worker unit's command: " + " ".join(exec_start),
      all(j.get("entrypoint") == exec_start for j in judges), str([j.get("entrypoint") for j in judges]))
cmd = web.get("command", [])
check("the front end judges nothing: --workers 0",
      "--workers" in cmd and cmd[cmd.index("--workers") + 1] == "0", str(cmd))


def sets(service):
    args = service.get("command", [])
    return dict(args[i + 1].split("=", 1) for i, a in enumerate(args) if a == "--set")


known = set(re.findall(r"^#? ?([a-z_]+) = ", conf, re.M))
unknown = [k for s in attn for k in sets(s) if k not in known]
check("every --set key is a setting of deploy/attnjudge.conf", not unknown, str(unknown))
urls = {sets(s).get("database") for s in attn}
env = db.get("environment", {})
want = "postgresql://%s:${ATTNJUDGE_DB_PASSWORD}@db:5432/%s" % (env.get("POSTGRES_USER"),
                                                               env.get("POSTGRES_DB"))
check("every attnjudge container names the db service's database", urls == {want}, str(urls))

volume = re.search(r"^VOLUME (\S+)$", dockerfile, re.M).group(1)
check(f"every attnjudge container shares the data volume at the image's VOLUME ({volume})",
      all(("data:" + volume) in s.get("volumes", []) for s in attn) and "data" in
      compose.get("volumes", {}), str([s.get("volumes") for s in attn]))
check("the sandbox's security options on every attnjudge container",
      all(set(s.get("security_opt", [])) == {"seccomp=unconfined", "apparmor=unconfined"}
          for s in attn))
grace = int(re.search(r"^shutdown_grace_s = (\d+)$", conf, re.M).group(1))
check(f"docker compose stop waits longer than shutdown_grace_s ({grace} s)",
      all(int(str(s.get("stop_grace_period", "0s")).rstrip("s")) > grace for s in attn))
expose = re.search(r"^EXPOSE (\d+)$", dockerfile, re.M).group(1)
check(f"the front end's port ({expose}) is published on the host's loopback only",
      web.get("ports") == ["127.0.0.1:%s:%s" % (expose, expose)], str(web.get("ports")))
check("no judge host waits for the front end's health",
      all(j.get("depends_on", {}).get("web", {}).get("condition") != "service_healthy"
          for j in judges) and
      all(j.get("depends_on", {}).get("db", {}).get("condition") == "service_healthy"
          for j in judges))
check("the judge hosts have no HTTP health check", all(j.get("healthcheck", {}).get("disable")
                                                       for j in judges))

for good, name in results:
    print(("ok " if good else "FAIL ") + name)
