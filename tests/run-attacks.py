#!/usr/bin/python3
"""Judges every attack in tests/attacks/ and checks its verdict.

    tests/run-attacks.py ATTNJUDGE_BINARY [ATTACK ...]

ATTACK is a path to a .c file or a bare name from tests/attacks/; without
any, every tests/attacks/*.c runs. Each attack file opens with a header:

  /* attack: what it tries            threat: which threat or pitfall
   * expect: VERDICT[|VERDICT...]     or !accepted (neither accepted nor internal_error)
   * message: TEXT[|TEXT...]          optional: in the first failing test's message or the compile log
   * forbid: TEXT                     optional, repeatable: must not appear in the judge's output
   * max-log: BYTES                   optional: the compile log's size bound
   * problem: SLUG                    default mha-fused-qkv
   * without-int80: VERDICT           optional: the verdict instead of expect's
                                      on a kernel without the i386 int 0x80
                                      entry (the instruction faults there)
   */

Before judging, the source is copied with these placeholders replaced:
@ATTNJUDGE_DATA@ (the judge's data directory), @ATTNJUDGE_DATA_REV@ and
@ATTNJUDGE_CANARY_REV@ (the data directory and the canary, reversed).

For every attack the runner runs, from the repository's top directory,
  timeout -k 5 60 ATTNJUDGE judge --problem SLUG --data DATA --json --samples-only FILE
with stdin a pipe that stays open and never carries data, and
ATTNJUDGE_ATTACK_CANARY=<random> in the judge's environment. It checks:
  - the judge exited 0 (accepted) or 1 (anything else), never crashed,
    never timed out, and printed one JSON object;
  - the verdict and the message are the expected ones; internal_error
    always fails (a submission must never cause it);
  - no file /tmp/attnjudge-escape-* exists afterwards;
  - no process is left behind: the runner is a child subreaper, so every
    orphaned descendant of the judge becomes its child and is seen (and
    killed, by pid); nor any new descendant whose executable is
    "memfd:attnjudge...";
  - the judge's output holds neither the deployment secret (raw, hex,
    base64), nor the canary, nor any `forbid` text.
One line per attack ("ok   NAME VERDICT" or "FAIL NAME: ..."), then
"N passed, N failed"; the exit status is 1 if any attack failed, 2 on usage
errors.

DATA is one fresh temporary directory for the whole run; the judge creates
its secret.key on the first call. All temporary files are removed at exit.
"""
import base64
import ctypes
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JUDGE_TIMEOUT = 60          # seconds, enforced by timeout(1)
HARD_TIMEOUT = 90           # seconds, our own last resort
GRACE = 3.0                 # seconds for leftovers to disappear
MAX_READ = 64 << 20         # bytes of the judge's output we look at
PR_SET_CHILD_SUBREAPER = 36


class Run:
    """What every attack of one run shares: the judge, a fresh data
    directory (its secret.key is created by the judge's first call), a
    directory for the substituted sources, and the canary."""

    def __init__(self, binary, tmp):
        self.binary = binary
        # The verdicts are the judge's own (`attnjudge vocabulary`), never a
        # copy kept here.
        vocab = json.loads(subprocess.run([binary, "vocabulary"], check=True,
                                          stdout=subprocess.PIPE, timeout=30).stdout)
        self.verdicts = set(vocab["verdicts"])
        self.tmp = tmp
        self.data = os.path.join(tmp, "data")
        os.mkdir(self.data, 0o700)
        self.srcdir = os.path.join(tmp, "src")
        os.mkdir(self.srcdir, 0o700)
        self.canary = "canary-" + os.urandom(12).hex()


def parse_header(path):
    text = open(path, "rb").read().decode("latin-1")
    m = re.match(r"\s*/\*(.*?)\*/", text, re.S)
    h = {"forbid": []}
    if not m:
        return h
    for line in m.group(1).splitlines():
        lm = re.match(r"\s*\*?\s*(attack|threat|expect|message|forbid|max-log|problem|without-int80):\s*(.*?)\s*$", line)
        if not lm:
            continue
        key, val = lm.group(1), lm.group(2)
        if key == "forbid":
            if val:
                h["forbid"].append(val)
        elif key not in h:
            h[key] = val
    return h


_int80 = None


def kernel_has_int80():
    """Whether this kernel has the i386 system-call entry (int 0x80): a
    probe calls getpid through it. Without 32-bit emulation the instruction
    is a general protection fault (SIGSEGV), and no system call is made."""
    global _int80
    if _int80 is None:
        d = tempfile.mkdtemp(prefix="attnjudge-int80.")
        try:
            src = os.path.join(d, "p.c")
            with open(src, "w") as f:
                f.write("#include <unistd.h>\nint main(void){long r; __asm__ volatile("
                        "\"int $0x80\" : \"=a\"(r) : \"a\"(20L) : \"memory\");"
                        " return r == (long)getpid() ? 0 : 1;}\n")
            subprocess.run(["gcc", "-O2", "-o", os.path.join(d, "p"), src], check=True)
            rc = subprocess.run([os.path.join(d, "p")]).returncode
            _int80 = rc != -signal.SIGSEGV
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return _int80


def proc_children(ppid):
    """Live (non-zombie) processes whose parent is ppid."""
    out = []
    for st in glob.glob("/proc/[0-9]*/stat"):
        try:
            s = open(st).read()
        except OSError:
            continue
        rest = s[s.rfind(")") + 2:].split()
        if len(rest) > 1 and int(rest[1]) == ppid and rest[0] != "Z":
            out.append(int(st.split("/")[2]))
    return out


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def memfd_procs():
    found = set()
    for exe in glob.glob("/proc/[0-9]*/exe"):
        try:
            if "memfd:attnjudge" in os.readlink(exe):
                found.add(int(exe.split("/")[2]))
        except OSError:
            pass
    return found


def is_descendant(pid, ancestor):
    """True if ancestor is pid's parent, grandparent, ... (bounded walk)."""
    for _ in range(64):
        try:
            s = open("/proc/%d/stat" % pid).read()
        except OSError:
            return False
        ppid = int(s[s.rfind(")") + 2:].split()[1])
        if ppid == ancestor:
            return True
        if ppid <= 1:
            return False
        pid = ppid
    return False


def describe(pid):
    try:
        cmd = open("/proc/%d/cmdline" % pid, "rb").read().replace(b"\0", b" ")
        return "%d(%s)" % (pid, cmd.decode("latin-1").strip()[:60])
    except OSError:
        return str(pid)


def strings_of(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings_of(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings_of(x)


def secret_forms(key):
    forms = [key, key.hex().encode(), key.hex().upper().encode(),
             " ".join("%02x" % b for b in key).encode(),
             base64.b64encode(key), base64.urlsafe_b64encode(key),
             base64.b64encode(key).rstrip(b"=")]
    # A partial leak counts too: the first half of the key in hex.
    forms.append(key[:16].hex().encode())
    return forms


def escape_files():
    return sorted(glob.glob("/tmp/attnjudge-escape-*"))


def run_one(run, path):
    name = os.path.basename(path)[:-2]
    h = parse_header(path)
    problem = h.get("problem") or "mha-fused-qkv"
    expect = h.get("expect")
    if not expect:
        return False, "FAIL %s: no 'expect:' line in its header" % name
    if h.get("without-int80") and not kernel_has_int80():
        expect = h["without-int80"]
    unknown = [e.strip() for e in expect.split("|")
               if e.strip() not in run.verdicts and e.strip() != "!accepted"]
    if unknown:
        return False, "FAIL %s: 'expect:' names no verdict: %s" % (name, ", ".join(unknown))

    for f in escape_files():
        try:
            os.unlink(f)
        except OSError:
            pass

    src = open(path, "rb").read()
    src = src.replace(b"@ATTNJUDGE_DATA_REV@", run.data[::-1].encode())
    src = src.replace(b"@ATTNJUDGE_CANARY_REV@", run.canary[::-1].encode())
    src = src.replace(b"@ATTNJUDGE_DATA@", run.data.encode())
    sub = os.path.join(run.srcdir, name + ".c")
    with open(sub, "wb") as f:
        f.write(src)

    env = dict(os.environ)
    env["ATTNJUDGE_ATTACK_CANARY"] = run.canary
    out_path = os.path.join(run.tmp, "out")
    err_path = os.path.join(run.tmp, "err")
    memfd_before = memfd_procs()
    cmd = ["timeout", "-k", "5", str(JUDGE_TIMEOUT), run.binary, "judge",
           "--problem", problem, "--data", run.data, "--json", "--samples-only", sub]
    t0 = time.monotonic()
    with open(out_path, "wb") as fo, open(err_path, "wb") as fe:
        p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.PIPE,
                             stdout=fo, stderr=fe, start_new_session=True)
        try:
            rc = p.wait(timeout=HARD_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.kill(p.pid, signal.SIGKILL)   # our own child, by pid
            rc = p.wait()
        except BaseException:
            # Interrupted (SIGINT, SIGTERM): timeout(1) passes SIGTERM on to
            # the judge, which ends its sandbox.
            os.kill(p.pid, signal.SIGTERM)
            raise
    p.stdin.close()
    elapsed = time.monotonic() - t0

    problems = []

    # Leftover processes: our orphaned descendants, and new memfd programs.
    deadline = time.monotonic() + GRACE
    left = []
    while True:
        reap()
        left = proc_children(os.getpid())
        # Other judges may run on this host at the same time: only our own
        # descendants count.
        new_memfd = {q for q in memfd_procs() - memfd_before
                     if is_descendant(q, os.getpid())}
        if (not left and not new_memfd) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    if left or new_memfd:
        problems.append("processes left behind: " +
                        ", ".join(describe(x) for x in sorted(set(left) | new_memfd)))
    for pid in left:                      # descendants of our judge call only
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(0.1 if left else 0)
    reap()

    escaped = escape_files()
    if escaped:
        problems.append("escape files exist: " + " ".join(escaped))
        for f in escaped:
            try:
                os.unlink(f)
            except OSError:
                pass

    with open(out_path, "rb") as f:
        out = f.read(MAX_READ)
    with open(err_path, "rb") as f:
        err = f.read(MAX_READ)

    if rc == 124 or rc == 137 or rc == -signal.SIGKILL:
        problems.append("the judge did not finish within %d s" % JUDGE_TIMEOUT)
    elif rc < 0 or rc > 2:
        problems.append("the judge crashed or failed: exit status %d" % rc)
    elif rc == 2:
        problems.append("the judge reported a usage error (exit 2)")

    report = None
    try:
        report = json.loads(out.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        # Tolerate log lines around the object: take the last line that parses.
        for line in reversed(out.splitlines()):
            try:
                report = json.loads(line.decode("utf-8"))
                break
            except (UnicodeDecodeError, ValueError):
                continue
    if not isinstance(report, dict) or not isinstance(report.get("verdict"), str):
        report = None
        problems.append("stdout is not a JSON report")

    verdict = report["verdict"] if report else "?"
    compile_log = ""
    first_msg = ""
    if report:
        compile_log = report.get("compile_log") or ""
        if not isinstance(compile_log, str):
            compile_log = ""
        for t in report.get("tests") or []:
            if isinstance(t, dict) and t.get("verdict") != "accepted":
                first_msg = str(t.get("message") or "")
                break
        if verdict not in run.verdicts:
            problems.append("unknown verdict %r" % verdict)

    # Verdict.
    if report:
        if expect == "!accepted":
            ok = verdict not in ("accepted", "internal_error")
        else:
            ok = verdict in [e.strip() for e in expect.split("|")]
        if verdict == "internal_error" and "internal_error" not in expect.split("|"):
            ok = False
        if not ok:
            problems.insert(0, "expected %s, got %s" % (expect, verdict))
        if rc in (0, 1) and (rc == 0) != (verdict == "accepted"):
            problems.append("exit status %d does not match verdict %s" % (rc, verdict))
        msg = h.get("message")
        if msg and verdict != "accepted":
            hay = first_msg + "\n" + compile_log
            if not any(m.strip() and m.strip() in hay for m in msg.split("|")):
                problems.append("message %r not in %r" %
                                (msg, (first_msg or compile_log)[:160]))
        if h.get("max-log"):
            n = len(compile_log.encode("utf-8", "surrogatepass"))
            if n > int(h["max-log"]):
                problems.append("compile log of %d bytes exceeds %s" % (n, h["max-log"]))

    # Leaks in everything the judge printed, raw and JSON-decoded.
    decoded = b""
    if report:
        decoded = "\n".join(strings_of(report)).encode("utf-8", "surrogatepass")
    hay_raw = out + b"\n" + err + b"\n" + decoded
    hay_latin = b""
    if report:  # \u00XX escapes of raw bytes decode to code points < 256
        try:
            hay_latin = "\n".join(strings_of(report)).encode("latin-1", "ignore")
        except Exception:
            hay_latin = b""
    key_path = os.path.join(run.data, "secret.key")
    if os.path.isfile(key_path):
        key = open(key_path, "rb").read()
        if key and any(form in hay_raw or form in hay_latin for form in secret_forms(key)):
            problems.append("the deployment secret appears in the judge's output")
    if run.canary.encode() in hay_raw:
        problems.append("the judge's environment (canary) appears in its output")
    for fb in h["forbid"]:
        if fb.encode("latin-1") in hay_raw:
            problems.append("forbidden text %r appears in the judge's output" % fb)

    if problems:
        return False, "FAIL %s: %s" % (name, "; ".join(problems))
    return True, "ok   %s %s (%.1f s)" % (name, verdict, elapsed)


def attack_list(args):
    """The attacks to run as absolute paths, or None (after a message) if
    one does not exist."""
    if not args:
        return sorted(f for f in glob.glob(os.path.join(ROOT, "tests", "attacks", "*.c"))
                      if os.path.isfile(f))
    files = []
    for a in args:
        f = a if ("/" in a or a.endswith(".c")) else os.path.join(ROOT, "tests", "attacks", a + ".c")
        if not os.path.isfile(f):
            print("run-attacks: no attack %s" % a, file=sys.stderr)
            return None
        files.append(os.path.abspath(f))
    return files


def judge_all(run, files):
    passed = failed = 0
    for path in files:
        try:
            good, line = run_one(run, path)
        except Exception as e:  # a bug here must not hide the other attacks
            good, line = False, "FAIL %s: runner error: %r" % (os.path.basename(path), e)
        print(line, flush=True)
        if good:
            passed += 1
        else:
            failed += 1
    if not os.path.isfile(os.path.join(run.data, "secret.key")):
        print("run-attacks: note: the judge created no %s/secret.key; "
              "the secret leak check was skipped" % run.data, flush=True)
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 1 if failed else 0


def on_signal(signum, frame):
    # SystemExit unwinds through main's finally, which removes the
    # temporary directory.
    sys.exit(128 + signum)


def main():
    if len(sys.argv) < 2:
        print("usage: %s ATTNJUDGE_BINARY [ATTACK.c|NAME ...]" % sys.argv[0], file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print("run-attacks: %s is not an executable" % binary, file=sys.stderr)
        return 2
    files = attack_list(sys.argv[2:])
    if files is None:
        return 2

    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    tmp = tempfile.mkdtemp(prefix="attnjudge-attacks.",
                           dir=os.environ.get("TMPDIR") or "/tmp")
    try:
        # Every orphaned descendant of the judge is re-parented to us.
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            print("run-attacks: warning: prctl(PR_SET_CHILD_SUBREAPER) failed; "
                  "leftover processes may go unnoticed", flush=True)
        return judge_all(Run(binary, tmp), files)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
