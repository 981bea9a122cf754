#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian 12 machine with Node 20: Debian packages, npm packages with
# their native builds, faiss-node built against Debian's libfaiss, then the TypeScript build.
# When nothing changed it only checks that the native modules load and recompiles incrementally.
set -euo pipefail
cd "$(dirname "$0")/.."
log="$(pwd)/.setup.log"
: >"$log"

say() { printf 'setup: %s\n' "$*" >&2; }
fail() { say "$1 failed; last lines of $log:"; tail -n 40 "$log" >&2; exit 1; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if ! dpkg-query -W -f='${Status}' libfaiss-dev 2>/dev/null | grep -q 'install ok installed'; then
  say "installing Debian packages (libfaiss-dev)"
  as_root apt-get update -qq >>"$log" 2>&1 || fail "apt-get update"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libfaiss-dev liblapack-dev libblas-dev \
    >>"$log" 2>&1 || fail "apt-get install"
fi

# The browser tests drive Debian's Chromium through playwright-core (which downloads no browser of its own).
if ! dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q 'install ok installed'; then
  say "installing Debian packages (chromium, for the dashboard's browser tests)"
  as_root apt-get update -qq >>"$log" 2>&1 || fail "apt-get update"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >>"$log" 2>&1 || fail "apt-get install chromium"
fi

stamp_file=node_modules/.livingmemory-setup
stamp="$(cat package-lock.json .ci/faiss/* .ci/sqlite/* | sha256sum | cut -c1-32) $(node -v)"
natives_load() {
  node -e "const db = require('better-sqlite3')(':memory:'); if (!db.pragma('compile_options', { simple: false }).some((o) => o.compile_options === 'LIVINGMEMORY_FTS5_OLDEST')) throw new Error('better-sqlite3 without the set-up patch'); db.close(); require('nodejieba').cut('记忆'); new (require('faiss-node').IndexFlatIP)(2); require('onnxruntime-node')" \
    >>"$log" 2>&1
}

if [ "$(cat "$stamp_file" 2>/dev/null)" != "$stamp" ] || ! natives_load; then
  say "installing npm packages and building native modules (a few minutes on a fresh machine)"
  # Scripts are skipped at install because faiss-node's own script downloads from GitHub;
  # the two other native modules run theirs through npm rebuild. onnxruntime-node's CPU runtime is in
  # its tarball; its script would only try an optional download, skipped if anything runs it.
  export ONNXRUNTIME_NODE_INSTALL=skip
  npm ci --ignore-scripts --no-audit --no-fund >>"$log" 2>&1 || fail "npm ci"
  # SQLite patched before it compiles, so an erasure needs no VACUUM (ADR 19): page gaps zeroed, FTS5 merges drop delete markers.
  python3 .ci/sqlite/patch.py node_modules/better-sqlite3/deps/sqlite3/sqlite3.c >>"$log" 2>&1 || fail "SQLite patch"
  npm_config_yes=true npm rebuild better-sqlite3 nodejieba >>"$log" 2>&1 || fail "native rebuild"
  bash .ci/faiss/build.sh >>"$log" 2>&1 || fail "faiss-node build"
  natives_load || fail "loading native modules"
  echo "$stamp" >"$stamp_file"
fi

node_modules/.bin/tsc -p tsconfig.json >>"$log" 2>&1 || fail "TypeScript build"
# The CLI's launcher loads this bundle of the compiled CLI (ADR 26: cold start); rebuilt after every build.
node .ci/bundle-cli.mjs >>"$log" 2>&1 || fail "CLI bundle"
# The dashboard's assets (web/ -> dist/web), served by `lmem serve`: rebuilt when its sources or
# the dependencies changed since the last build.
web_stamp="$( (find web -type f | LC_ALL=C sort | xargs cat; cat package-lock.json) | sha256sum | cut -c1-32)"
if [ "$(cat dist/web/.stamp 2>/dev/null)" != "$web_stamp" ] || [ ! -f dist/web/index.html ]; then
  node_modules/.bin/tsc -p web/tsconfig.json >>"$log" 2>&1 || fail "dashboard type check"
  node_modules/.bin/vite build --config web/vite.config.ts --logLevel warn >>"$log" 2>&1 || fail "dashboard build"
  echo "$web_stamp" >dist/web/.stamp
fi
