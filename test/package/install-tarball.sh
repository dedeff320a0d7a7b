#!/usr/bin/env bash
# The package as a user gets it: `npm pack`, then `npm install -g` of the tarball into a clean
# prefix with the network off (--offline: the dependencies come from npm's cache, which the
# clone's `npm ci` filled), then the installed `ndb` run from an unrelated folder on the
# embedded model. CI runs it after the tests (.ci/run); `npm run test:package` runs it here.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
WORK=$(mktemp -d /tmp/ndb-package-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export ONNXRUNTIME_NODE_INSTALL=skip

TGZ=$(npm pack --silent --pack-destination "$WORK" | tail -1)
echo "package: packed $TGZ ($(du -h "$WORK/$TGZ" | cut -f1))"
npm install -g --offline --no-audit --no-fund --prefix "$WORK/prefix" "$WORK/$TGZ" >/dev/null
NDB=$WORK/prefix/bin/ndb
[ -x "$NDB" ] || { echo "package: no ndb on the prefix's PATH ($NDB)" >&2; exit 1; }

mkdir "$WORK/user" && cp examples/count.py "$WORK/user/" && cd "$WORK/user"
version=$("$NDB" --version)
[ "$version" = "$(node -p "require('$ROOT/package.json').version")" ] || { echo "package: ndb --version said '$version'" >&2; exit 1; }
"$NDB" lsp --help >/dev/null
out=$(printf 'n\nn\nq\n' | "$NDB" debug count.py --entry count --args "'berry', 'r'" 2>&1)
echo "$out" | grep -q "count.py(.*)count()" || { echo "package: ndb debug did not stop in count():" >&2; echo "$out" >&2; exit 1; }
if echo "$out" | grep -qi "internal error\|cannot find\|not found"; then echo "package: ndb debug failed:" >&2; echo "$out" >&2; exit 1; fi
echo "package: installed ndb $version on a clean prefix; ndb debug stopped in count() on the embedded model"
