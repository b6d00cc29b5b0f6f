import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { postgresBinDir, POSTGRES_INSTALL } from './postgres';
import { MARIADB_INSTALL } from './mariadb';

/**
 * The one place that finds the system parts the tests need beyond Node and node_modules: a browser for the page
 * tests, an S3-compatible server for the storage tests, and (as the suites grow) database servers. Each finder
 * returns what it found or throws MissingPart naming the exact command that installs it: a test that cannot find
 * its part fails with that command, it is never skipped (docs/development.md, "Testing"). scripts/run-tests.mjs asks every
 * finder before it runs a group, so a missing part is reported once, up front.
 */
export class MissingPart extends Error {
  constructor(
    readonly part: string,
    readonly install: string,
  ) {
    super(`${part} is not installed; install it with: ${install}`);
  }

  /** Debian's packages that the install command names (none when it is not a plain `apt-get install -y …`). */
  get packages(): string[] {
    const m = /^apt-get install -y ([a-z0-9][a-z0-9.+\- ]*)/.exec(this.install);
    return m ? m[1].trim().split(/\s+/) : [];
  }
}

/**
 * Whether this process may install Debian packages by itself: as root, with apt-get on the machine, and not told
 * otherwise (FERRY_TEST_INSTALL=0). apt-get runs with -y and DEBIAN_FRONTEND=noninteractive, so it asks nothing.
 */
export function mayInstallPackages(): boolean {
  if (process.env.FERRY_TEST_INSTALL === '0') return false;
  if (process.getuid?.() !== 0) return false;
  return fs.existsSync('/usr/bin/apt-get');
}

let aptUpdated = false;

/**
 * Installs the packages of a missing part when this process may (mayInstallPackages), telling `say` what it does
 * and why. Debian starts daemons of its own on install (a PostgreSQL cluster, memcached on port 11211, Swift's
 * servers); the tests start their own on free ports, so those are stopped again, as .ci/run does. Returns whether
 * apt-get succeeded; the caller looks for the part again either way.
 */
export function installMissingPart(missing: MissingPart, say: (line: string) => void): boolean {
  const packages = missing.packages;
  if (packages.length === 0 || !mayInstallPackages()) return false;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args: string[]) =>
    spawnSync('apt-get', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 15 * 60 * 1000 });
  say(
    `${missing.part} is missing: installing it (running as root with apt-get: apt-get install -y ${packages.join(' ')})`,
  );
  if (!aptUpdated) {
    run(['update', '-qq']);
    aptUpdated = true;
  }
  const r = run(['install', '-y', '-qq', ...packages]);
  if (r.status !== 0) {
    say(
      `apt-get install failed (exit ${r.status ?? r.signal}): ${`${r.stdout}${r.stderr}`.trim().split('\n').slice(-5).join(' / ')}`,
    );
    return false;
  }
  // Only the daemons of the packages just installed: a server the machine already ran is left alone.
  const started = (u: string) =>
    packages.some(
      (p) =>
        u === p || (p.startsWith('swift-') && u.startsWith('swift-')) || (p === 'mariadb-server' && u === 'mariadb'),
    );
  const daemons = fs.existsSync('/etc/init.d') ? fs.readdirSync('/etc/init.d').filter(started) : [];
  for (const unit of daemons) spawnSync('service', [unit, 'stop'], { stdio: 'ignore', timeout: 60_000 });
  say(`installed ${packages.join(' ')}`);
  return true;
}

export interface FoundPart {
  part: string;
  /** What was found, for the runner's report (a path and where it came from). */
  found: string;
}

const ROOT = path.resolve(__dirname, '../../..');

/**
 * Chromium for the browser tests: $CHROMIUM_PATH, else Debian's chromium, else the Chromium that the npm package
 * @sparticuz/chromium carries inside itself (a dev dependency, so `npm ci` alone gives every machine a browser;
 * it unpacks to /tmp on first use, ~4 s).
 */
export async function chromiumExecutable(): Promise<string> {
  const given = process.env.CHROMIUM_PATH;
  if (given) {
    if (!fs.existsSync(given))
      throw new MissingPart(
        `chromium at CHROMIUM_PATH=${given}`,
        'apt-get install -y chromium, or unset CHROMIUM_PATH',
      );
    return given;
  }
  if (fs.existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  const pkg = path.join(ROOT, 'node_modules/@sparticuz/chromium');
  if (fs.existsSync(pkg)) {
    // An ES module: imported by file URL so that this CommonJS-compiled helper can load it.
    const mod = (await import(new URL(`file://${pkg}/build/index.js`).href)) as {
      default: { executablePath(): Promise<string> };
    };
    return mod.default.executablePath();
  }
  throw new MissingPart('chromium', 'apt-get install -y chromium (or `npm ci`, which installs @sparticuz/chromium)');
}

/**
 * Python 3 with the `cryptography` package: the independent implementation that the encryption format's test
 * vectors are checked against (test/helpers/encryption/reference.py).
 */
export async function python3Cryptography(): Promise<string> {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('python3', ['-c', 'import cryptography; print(cryptography.__version__)'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (r.status !== 0) throw new MissingPart('python3-cryptography', 'apt-get install -y python3-cryptography');
  return `python3 cryptography ${r.stdout.trim()}`;
}

/** PostgreSQL's server binaries (test/helpers/system/postgres.ts starts the server from them). */
async function postgresPart(): Promise<FoundPart> {
  try {
    return { part: 'postgresql', found: postgresBinDir() };
  } catch (e) {
    throw new MissingPart(
      `postgresql (${(e as Error).message.split(' (')[1]?.split(')')[0] ?? 'server binaries'})`,
      POSTGRES_INSTALL,
    );
  }
}

/**
 * Debian's MariaDB server (test/helpers/system/mariadb.ts starts `mariadbd` itself on an empty folder): the
 * FileSender database on MySQL/MariaDB that `ferry import filesender` reads (test/storage/import-filesender.test.ts).
 */
async function mariadbPart(): Promise<FoundPart> {
  for (const p of ['/usr/sbin/mariadbd', '/usr/bin/mariadbd'])
    if (fs.existsSync(p)) return { part: 'mariadb', found: p };
  throw new MissingPart('mariadb', MARIADB_INSTALL);
}

/** systemd-analyze, which checks the units `ferry service install` writes (Debian's systemd package). */
export async function systemdAnalyze(): Promise<string> {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':').concat(['/usr/bin', '/bin'])) {
    const p = path.join(dir, 'systemd-analyze');
    if (dir && fs.existsSync(p)) return p;
  }
  throw new MissingPart('systemd-analyze', 'apt-get install -y systemd');
}

export const DEB_TOOLS_INSTALL = 'apt-get install -y dpkg-dev lintian';

/**
 * Debian's packaging tools for the package test (test/e2e/deb-package.test.ts): dpkg-deb and dpkg-shlibdeps build
 * it (scripts/deb/build.sh), lintian checks it, deb-systemd-helper (init-system-helpers, essential) enables its unit.
 */
export async function debianPackaging(): Promise<string> {
  const bins = ['dpkg-deb', 'dpkg-shlibdeps', 'lintian', 'deb-systemd-helper'];
  const dirs = ['/usr/bin', '/usr/sbin', '/bin', '/sbin'];
  const missing = bins.filter((b) => !dirs.some((d) => fs.existsSync(path.join(d, b))));
  if (missing.length)
    throw new MissingPart(`Debian packaging tools (missing ${missing.join(', ')})`, DEB_TOOLS_INSTALL);
  const v = spawnSync('lintian', ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return `dpkg-deb, dpkg-shlibdeps, ${v.stdout.trim() || 'lintian'}`;
}

export const SWIFT_INSTALL =
  'apt-get install -y swift-proxy swift-object swift-container swift-account python3-swift memcached';

export interface SwiftParts {
  proxy: string;
  account: string;
  container: string;
  object: string;
  memcached: string;
  /** Swift's version, from its Python package's metadata (for the runner's report). */
  version: string;
}

const PY_DIST = '/usr/lib/python3/dist-packages';

/**
 * OpenStack Swift from Debian's packages, with the s3api middleware that makes its proxy speak S3, and the
 * memcached its tempauth keeps tokens in: the real S3-compatible server of the storage tests (test/helpers/system/
 * s3.ts starts it). The servers read the hash prefix and storage policies from /etc/swift/swift.conf, which the
 * package installs; everything else comes from config files that the tests write.
 */
export function swiftS3Parts(): SwiftParts {
  const bins = {
    proxy: '/usr/bin/swift-proxy-server',
    account: '/usr/bin/swift-account-server',
    container: '/usr/bin/swift-container-server',
    object: '/usr/bin/swift-object-server',
    memcached: '/usr/bin/memcached',
  };
  const needed = [...Object.values(bins), '/etc/swift/swift.conf', `${PY_DIST}/swift/common/middleware/s3api`];
  const missing = needed.filter((f) => !fs.existsSync(f));
  if (missing.length) throw new MissingPart(`swift with s3api (missing ${missing.join(', ')})`, SWIFT_INSTALL);
  const egg = fs.readdirSync(PY_DIST).find((f) => /^swift-[\d.]+\.(egg|dist)-info$/.test(f));
  return { ...bins, version: egg ? egg.replace(/^swift-([\d.]+)\..*$/, '$1') : 'unknown version' };
}

/** Swift with s3api, the S3-compatible server of test/helpers/system/s3.ts. */
async function s3ServerPart(): Promise<FoundPart> {
  const s = swiftS3Parts();
  return { part: 's3 server', found: `Swift ${s.version} with s3api (${s.proxy}) and ${s.memcached}` };
}

export const SLAPD_INSTALL = 'apt-get install -y slapd ldap-utils';

/** Debian's slapd (the LDAP tests start their own in a temp dir: test/helpers/system/slapd.ts) and openssl for its certificates. */
export function slapdBinaries(): { slapd: string; slappasswd: string; slapadd: string } {
  const bins = { slapd: '/usr/sbin/slapd', slappasswd: '/usr/sbin/slappasswd', slapadd: '/usr/sbin/slapadd' };
  const needed = [...Object.values(bins), '/etc/ldap/schema/inetorgperson.schema', '/usr/bin/openssl'];
  const missing = needed.filter((f) => !fs.existsSync(f));
  if (missing.length) throw new MissingPart(`slapd (missing ${missing.join(', ')})`, `${SLAPD_INSTALL} openssl`);
  return bins;
}

async function slapdPart(): Promise<FoundPart> {
  return { part: 'slapd', found: slapdBinaries().slapd };
}

export const CLAMD_INSTALL =
  'apt-get install -y clamav-daemon clamav (then stop clamav-daemon and clamav-freshclam: the tests start their own clamd)';

/**
 * Debian's clamd, which the virus-scanning tests start themselves with a signature database of their own
 * (test/helpers/system/clamd.ts).
 */
export function clamdBinary(): string {
  for (const p of ['/usr/sbin/clamd', '/usr/bin/clamd']) if (fs.existsSync(p)) return p;
  throw new MissingPart('clamd', CLAMD_INSTALL);
}

async function clamdPart(): Promise<FoundPart> {
  return { part: 'clamd', found: clamdBinary() };
}

export const SIMPLESAMLPHP_INSTALL = 'apt-get install -y simplesamlphp php-cli php-xml php-mbstring php-curl openssl';

/** Debian's SimpleSAMLphp and PHP's command line (the SAML tests run it as their identity provider: test/helpers/system/simplesamlphp.ts). */
export function simplesamlphpFiles(): { php: string; www: string; configDir: string; openssl: string } {
  const files = {
    php: '/usr/bin/php',
    www: '/usr/share/simplesamlphp/www',
    configDir: '/etc/simplesamlphp',
    openssl: '/usr/bin/openssl',
  };
  const needed = [
    ...Object.values(files),
    '/usr/share/simplesamlphp/modules/exampleauth',
    '/etc/simplesamlphp/config.php',
  ];
  const missing = needed.filter((f) => !fs.existsSync(f));
  if (missing.length) throw new MissingPart(`simplesamlphp (missing ${missing.join(', ')})`, SIMPLESAMLPHP_INSTALL);
  return files;
}

async function simplesamlphpPart(): Promise<FoundPart> {
  const f = simplesamlphpFiles();
  return { part: 'simplesamlphp', found: `${f.www} with ${f.php}` };
}

/** Every finder by the test group that needs it; the runner checks them before running the group. */
export const partsOfGroup: Record<string, Array<() => Promise<FoundPart>>> = {
  browser: [
    async () => ({ part: 'chromium', found: await chromiumExecutable() }),
    slapdPart,
    clamdPart,
    simplesamlphpPart,
    // test/browser/retry-after.test.ts puts the server's file store on S3, to take it away for a moment.
    s3ServerPart,
  ],
  // test/integration/encryption-format.test.ts checks the encryption format against Python's `cryptography`.
  integration: [async () => ({ part: 'python3-cryptography', found: await python3Cryptography() })],
  // test/http/virus-scan.test.ts starts a clamd; test/storage/virus-scan-s3.test.ts too, on the S3 server.
  http: [slapdPart, clamdPart, simplesamlphpPart],
  'http-postgres': [postgresPart, slapdPart, clamdPart, simplesamlphpPart],
  'http-s3': [s3ServerPart, slapdPart, clamdPart, simplesamlphpPart],
  // The three-node test (test/e2e/three-nodes.test.ts) runs its nodes on PostgreSQL and the S3 server.
  e2e: [
    async () => ({ part: 'systemd-analyze', found: await systemdAnalyze() }),
    // The Debian package test builds, checks and installs the package (test/e2e/deb-package.test.ts).
    async () => ({ part: 'debian packaging', found: await debianPackaging() }),
    postgresPart,
    s3ServerPart,
    clamdPart,
  ],
  // test/storage/import-filesender.test.ts imports from FileSender databases on PostgreSQL and MariaDB.
  storage: [s3ServerPart, clamdPart, postgresPart, mariadbPart],
  // The late-chunk races run on the filesystem and on the S3 server (test/adversarial/signed-chunks.test.ts).
  adversarial: [s3ServerPart],
  'adversarial-postgres': [postgresPart, s3ServerPart],
};
