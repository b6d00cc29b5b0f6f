#!/usr/bin/env bash
# Builds dist/ferry: esbuild bundle → Node SEA blob (with the SQLite addon and web assets) → injected node copy.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
B=.build
mkdir -p "$B" dist
VERSION=$(node -p "require('./package.json').version")

# Web assets first (when the web bundle exists), so they can be embedded.
if [ -f scripts/build-web.mjs ]; then node scripts/build-web.mjs; fi

node_modules/.bin/esbuild src/main.ts --bundle --platform=node --target=node20 --format=cjs \
  --outfile="$B/ferry.cjs" --define:__FERRY_VERSION__="\"$VERSION\"" \
  --alias:supports-color=./scripts/build/stub.cjs --alias:bufferutil=./scripts/build/stub.cjs \
  --alias:utf-8-validate=./scripts/build/stub.cjs \
  --minify-syntax --minify-whitespace --legal-comments=none --log-level=warning

ADDON=node_modules/better-sqlite3/build/Release/better_sqlite3.node
node -e '
const fs = require("fs"), path = require("path");
const [cfgPath, addon] = process.argv.slice(1);
const assets = { "better_sqlite3.node": addon };
const webDir = ".build/web-assets";
if (fs.existsSync(webDir)) {
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]);
  for (const f of walk(webDir)) assets["web/" + path.relative(webDir, f).split(path.sep).join("/")] = f;
}
fs.writeFileSync(cfgPath, JSON.stringify({
  main: ".build/ferry.cjs", output: ".build/sea-prep.blob",
  disableExperimentalSEAWarning: true, useCodeCache: true, useSnapshot: false, assets,
}, null, 2));
' "$B/sea-config.json" "$ADDON"
node --experimental-sea-config "$B/sea-config.json" >/dev/null 2>&1

cp "$(command -v node)" "$B/ferry.tmp"
chmod u+w "$B/ferry.tmp"
strip "$B/ferry.tmp" 2>/dev/null || true
node_modules/.bin/postject "$B/ferry.tmp" NODE_SEA_BLOB "$B/sea-prep.blob" \
  --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2 2>&1 | grep -v -e "Can't find string offset" -e '^$' -e 'warning:' || true
chmod 755 "$B/ferry.tmp"
mv "$B/ferry.tmp" dist/ferry
echo "built dist/ferry ($(du -h dist/ferry | cut -f1), version $VERSION)"
