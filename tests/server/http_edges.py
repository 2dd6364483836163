"""HTTP edges of the request target, on a real server (docs/api.md,
"Errors"):

- a query of hundreds of parameters (900: a 7.9 KB URL, which once filled
  libmicrohttpd's per-connection memory and left the request unanswered
  until the 30 s timeout) is answered 414 `uri_too_long` at once, as is
  any target over 8 KiB; 64 parameters still work;
- an encoded NUL or slash in the path (`%00`, `%2f`, `%2F`), which would be
  routed as decoded, is answered 400 `invalid_path`;
- other encodings still work: `%2D` in the path, `%64` and `%20` in query
  values (decoded), an encoded slash in a query value.

    python3 tests/server/http_edges.py BUILD_DIR/attnjudge
"""
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from serverlib import run_scenario  # noqa: E402

SLUG = "softmax-stable"
ANSWER_WITHIN_S = 5  # the server's idle timeout is 30 s: a stuck request shows


def raw_get(port, target, token=None):
    """Sends GET target (as written, no re-encoding) on a new connection;
    returns (status, JSON body or None, seconds taken); status 0 when no
    answer came within ANSWER_WITHIN_S."""
    auth = "Authorization: Bearer %s\r\n" % token if token else ""
    req = "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sConnection: close\r\n\r\n" % (target, auth)
    start = time.time()
    data = b""
    with socket.create_connection(("127.0.0.1", port), timeout=ANSWER_WITHIN_S) as s:
        s.sendall(req.encode())
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        except socket.timeout:
            return 0, None, time.time() - start
    took = time.time() - start
    head, _, body = data.partition(b"\r\n\r\n")
    try:
        status = int(head.split(b" ")[1])
    except (IndexError, ValueError):
        return 0, None, took
    try:
        parsed = json.loads(body) if body else None
    except ValueError:
        parsed = None
    return status, parsed, took


def query(n):
    return "&".join("k%03d=%03d" % (i % 1000, i % 1000) for i in range(n))


def scenario(srv, rep):
    port = srv.port
    token = srv.client().sign_in("prof", "prof-password")

    def check(name, target, status, code=None, auth=False):
        st, body, took = raw_get(port, target, token if auth else None)
        have = (body or {}).get("error", {}).get("code") if code else None
        rep.check("%s: %d%s in %.2f s" % (name, status, " " + code if code else "", took),
                  st == status and have == code and took < ANSWER_WITHIN_S,
                  "got %d %s after %.2f s" % (st, json.dumps(body)[:200], took))

    # 1. long queries: an answer at once, 414 with the JSON error
    target = "/api/problems?" + query(900)
    rep.check("the 900-parameter URL is 7.9 KiB, under the 8 KiB limit (%d bytes)" % len(target),
              7900 < len(target) <= 8192)
    check("900 query parameters", target, 414, "uri_too_long")
    check("2000 query parameters (an 18 KB URL)", "/api/problems?" + query(2000), 414,
          "uri_too_long")
    check("65 query parameters", "/api/problems?" + query(65), 414, "uri_too_long")
    check("64 query parameters", "/api/problems?" + query(64), 200)
    check("one parameter in a target over 8 KiB", "/api/problems?a=" + "x" * 8200, 414,
          "uri_too_long")
    check("the server still answers after them", "/api/problems", 200)

    # 2. an encoded NUL or slash in the path
    check("%00 in the path", "/api/problems/%s%%00.zip" % SLUG, 400, "invalid_path")
    check("%2f in the path", "/api/problems%%2f%s" % SLUG, 400, "invalid_path")
    check("%2F in the path", "/api/problems%%2F%s" % SLUG, 400, "invalid_path")
    check("%2F in a static path", "/assets%2Fapp.js", 400, "invalid_path")

    # 3. other encodings are decoded as before
    check("%2D in the path names the problem", "/api/problems/softmax%2Dstable", 200)
    check("%64 in a query value is decoded", "/api/submissions?status=%64one", 200, auth=True)
    check("%20 in a query value is decoded (' done' is no status)",
          "/api/submissions?status=%20done", 400, "invalid_parameter", auth=True)
    check("an encoded slash in a query value is a value, not a path",
          "/api/submissions?problem=a%2Fb", 400, "invalid_parameter", auth=True)


if __name__ == "__main__":
    sys.exit(run_scenario(sys.argv[1], "http_edges", scenario))
