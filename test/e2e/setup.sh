#!/usr/bin/env bash
# The e2e test's tools, offline (only the npm registry and Debian apt reachable):
# code-server 4.100.3 (VS Code 1.100.3, the last release on Node 20) in .e2e/, its native
# modules built from source against the machine's Node headers (/usr/include/node), rg from
# Debian's ripgrep, and Debian's chromium for playwright-core. See test/e2e/README.md.
# Idempotent: a second run only checks. Run from anywhere; root for apt-get.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CS_VERSION=4.100.3
E2E=${NDB_E2E_DIR:-$ROOT/.e2e}

if [ "$(id -u)" = 0 ] && { ! command -v chromium >/dev/null || ! command -v rg >/dev/null; }; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # build-essential and python3 for node-gyp; the Node headers come with Debian's nodejs (or NodeSource's) package.
  apt-get install -y -qq --no-install-recommends chromium ripgrep make g++ python3 >/dev/null
fi

NODEDIR=${NDB_NODEDIR:-}
if [ -z "$NODEDIR" ]; then
  for d in /usr /usr/local "$(dirname "$(dirname "$(command -v node)")")"; do
    if [ -f "$d/include/node/node.h" ]; then NODEDIR=$d; break; fi
  done
fi
[ -n "$NODEDIR" ] || { echo "setup: no Node headers (include/node/node.h) found: set NDB_NODEDIR" >&2; exit 1; }

VS=$E2E/node_modules/code-server/lib/vscode
if [ -f "$E2E/.ready-$CS_VERSION" ]; then echo "setup: code-server $CS_VERSION ready in $E2E"; exit 0; fi

mkdir -p "$E2E"
[ -f "$E2E/package.json" ] || echo '{ "name": "ndb-e2e-tools", "private": true }' > "$E2E/package.json"
# --ignore-scripts: code-server's postinstall runs `npm install` in lib/vscode, whose
# dependencies' scripts download prebuilt binaries (and rg) from GitHub. We do its steps here.
(cd "$E2E" && npm install --ignore-scripts --no-audit --no-fund --no-save "code-server@$CS_VERSION")
(cd "$VS" && npm install --omit=dev --ignore-scripts --no-audit --no-fund)
(cd "$VS/extensions" && npm install --omit=dev --ignore-scripts --no-audit --no-fund && node postinstall.mjs >/dev/null)

GYP="node $(dirname "$(dirname "$(command -v npm)")")/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"
[ -f "${GYP#node }" ] || GYP="npx --yes node-gyp"
# The native modules VS Code's server loads on Linux. kerberos (proxy authentication only)
# needs libkrb5-dev and is left out; @parcel/watcher ships its linux binary on npm; the
# windows-* modules are Windows-only.
for p in @vscode/spdlog node-pty native-watchdog @vscode/deviceid; do
  echo "setup: building $p"
  (cd "$VS/node_modules/$p" && $GYP rebuild --nodedir="$NODEDIR" -j "$(nproc)" >/dev/null)
done
# code-server's own password hashing (loaded even with --auth none).
echo "setup: building argon2"
(cd "$E2E/node_modules/argon2" && node ../@mapbox/node-pre-gyp/bin/node-pre-gyp rebuild --build-from-source --nodedir="$NODEDIR" >/tmp/ndb-e2e-argon2.log 2>&1) || { cat /tmp/ndb-e2e-argon2.log >&2; exit 1; }
# VS Code's search: @vscode/ripgrep's postinstall would download rg.
mkdir -p "$VS/node_modules/@vscode/ripgrep/bin"
cp "$(command -v rg)" "$VS/node_modules/@vscode/ripgrep/bin/rg"
# The rest of code-server's postinstall.sh.
ln -sfn node_modules "$VS/node_modules.asar"
(cd "$VS/bin/remote-cli" && ln -sfn code-linux.sh code-server)
(cd "$VS/bin/helpers" && ln -sfn browser-linux.sh browser.sh)

touch "$E2E/.ready-$CS_VERSION"
echo "setup: code-server $CS_VERSION ready in $E2E"
