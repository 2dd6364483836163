#!/bin/sh
# Builds the web UI into web/dist/ (what `attnjudge serve --web web/dist`
# serves): installs the npm dependencies pinned by package-lock.json with
# `npm ci` when node_modules is missing or older than the lock file, then
# bundles with esbuild (build.mjs). Does nothing when dist/ is newer than
# every input. Exits non-zero with a clear message when node or npm is
# missing.
#
#   web/build.sh [--force]
set -eu

cd "$(dirname "$0")"

need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "web/build.sh: '$1' is not installed; install Debian's nodejs and npm" \
             "(apt-get install -y nodejs npm) or Node.js >= 18 with npm" >&2
        exit 1
    fi
}
need node
need npm
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 18 ]; then
    echo "web/build.sh: Node.js >= 18 is needed, found $(node --version)" >&2
    exit 1
fi

force=0
[ "${1:-}" = "--force" ] && force=1

# npm ci writes node_modules/.package-lock.json; it is older than the
# committed lock file when the lock file changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
   || [ package.json -nt node_modules/.package-lock.json ]; then
    echo "web: npm ci"
    npm ci --no-audit --no-fund --loglevel=error
    touch node_modules/.package-lock.json
    force=1
fi

stamp=dist/.built
if [ "$force" -eq 0 ] && [ -f "$stamp" ] \
   && [ -z "$(find src build.mjs package-lock.json -newer "$stamp" 2>/dev/null | head -1)" ]; then
    exit 0
fi
echo "web: bundling into web/dist"
node build.mjs
touch "$stamp"
