import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { tempDir } from '../temp-dir';
import { freePort } from '../free-port';
import { simplesamlphpFiles } from './parts';

/** A person of the identity provider's exampleauth:UserPass source: a password and the attributes it releases. */
export interface IdpUser {
  password: string;
  attributes: Record<string, string[]>;
}

/** A service provider the identity provider knows (its saml20-sp-remote entry). */
export interface IdpServiceProvider {
  entityId: string;
  acs: string;
  slo: string;
  /** The service provider's certificate (PEM): checks its signed requests, and encrypts assertions to it. */
  certPem: string;
  /** Encrypt the assertions sent to this service provider. */
  encrypt?: boolean;
  /** Seconds an assertion is valid (SimpleSAMLphp's assertion.lifetime; its default is 300). */
  lifetimeS?: number;
}

export interface TestIdp {
  /** http://127.0.0.1:<port>/ */
  baseUrl: string;
  entityId: string;
  metadataUrl: string;
  /** The identity provider's signing key and certificate (PEM). */
  keyPem: string;
  certPem: string;
  /** Replaces the service providers it knows (read by SimpleSAMLphp on each request). */
  setServiceProviders(sps: IdpServiceProvider[]): void;
  close(): Promise<void>;
}

/**
 * Debian's SimpleSAMLphp (the software FileSender deployments sign in through) as a SAML 2.0 identity provider,
 * run by PHP's built-in server from /usr/share/simplesamlphp/www with SIMPLESAMLPHP_CONFIG_DIR pointing at a temp
 * copy of /etc/simplesamlphp. The copy's config.php reads the original and sets what a test instance needs:
 * the full base URL, its own cert/log/temp/data folders, a random secret salt, the IdP and exampleauth on,
 * and session cookies without Secure and with SameSite=Lax (plain HTTP on loopback). Its key pair is made with openssl; its metadata
 * is served at /saml2/idp/metadata.php. Listens on 127.0.0.1 only.
 */
export async function startIdp(
  users: Record<string, IdpUser>,
  opts: { port?: number; signMetadata?: boolean } = {},
): Promise<TestIdp> {
  const files = simplesamlphpFiles();
  const dir = tempDir('ferry-idp-');
  const port = opts.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}/`;
  const conf = path.join(dir, 'config');
  fs.cpSync(files.configDir, conf, { recursive: true });
  for (const d of ['cert', 'log', 'tmp', 'data', 'sessions', 'metadata'])
    fs.mkdirSync(path.join(dir, d), { recursive: true });
  const made = spawnSync(
    files.openssl,
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '30',
      '-subj',
      '/CN=idp.test',
      '-keyout',
      'idp.key',
      '-out',
      'idp.crt',
    ],
    { cwd: path.join(dir, 'cert'), encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl req: ${made.stderr}`);
  const keyPem = fs.readFileSync(path.join(dir, 'cert', 'idp.key'), 'utf8');
  const certPem = fs.readFileSync(path.join(dir, 'cert', 'idp.crt'), 'utf8');
  fs.renameSync(path.join(conf, 'config.php'), path.join(conf, 'config.debian.php'));
  const php = (v: unknown) => `json_decode(${JSON.stringify(JSON.stringify(v))}, true)`;
  const overrides: Record<string, unknown> = {
    baseurlpath: baseUrl,
    certdir: path.join(dir, 'cert') + '/',
    loggingdir: path.join(dir, 'log') + '/',
    'logging.handler': 'file',
    tempdir: path.join(dir, 'tmp'),
    datadir: path.join(dir, 'data') + '/',
    secretsalt: crypto.randomBytes(16).toString('hex'),
    'auth.adminpassword': crypto.randomBytes(16).toString('hex'),
    timezone: 'UTC',
    'enable.saml20-idp': true,
    'module.enable': { exampleauth: true, core: true, saml: true },
    'session.cookie.secure': false,
    // Debian's config asks SameSite=None, which browsers refuse without Secure: Lax carries the session over
    // the top-level redirects of a sign-in on plain HTTP.
    'session.cookie.samesite': 'Lax',
    'language.cookie.samesite': 'Lax',
    'session.phpsession.savepath': path.join(dir, 'sessions'),
    'metadata.sources': [{ type: 'flatfile', directory: path.join(dir, 'metadata') }],
    'metadata.sign.enable': !!opts.signMetadata,
    'metadata.sign.privatekey': 'idp.key',
    'metadata.sign.certificate': 'idp.crt',
  };
  fs.writeFileSync(
    path.join(conf, 'config.php'),
    `<?php\nrequire __DIR__ . '/config.debian.php';\n$config = array_merge($config, ${php(overrides)});\n`,
  );
  const source: Record<string, unknown> = { 0: 'exampleauth:UserPass' };
  for (const [name, u] of Object.entries(users)) source[`${name}:${u.password}`] = u.attributes;
  fs.writeFileSync(
    path.join(conf, 'authsources.php'),
    `<?php\n$config = ${php({ admin: ['core:AdminPassword'], users: source })};\n`,
  );
  const hosted = {
    host: '__DEFAULT__',
    privatekey: 'idp.key',
    certificate: 'idp.crt',
    auth: 'users',
    'saml20.sign.response': true,
    'saml20.sign.assertion': true,
    'sign.logout': true,
    'redirect.sign': true,
    NameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  };
  fs.writeFileSync(
    path.join(dir, 'metadata', 'saml20-idp-hosted.php'),
    `<?php\n$metadata['__DYNAMIC:1__'] = ${php(hosted)};\n`,
  );
  const setServiceProviders = (sps: IdpServiceProvider[]) => {
    const remote: Record<string, unknown> = {};
    for (const sp of sps) {
      remote[sp.entityId] = {
        AssertionConsumerService: sp.acs,
        SingleLogoutService: sp.slo,
        certData: sp.certPem.replace(/-----[^-]+-----|\s/g, ''),
        'assertion.encryption': !!sp.encrypt,
        'validate.authnrequest': true,
        'validate.logout': true,
        ...(sp.lifetimeS ? { 'assertion.lifetime': sp.lifetimeS } : {}),
      };
    }
    fs.writeFileSync(path.join(dir, 'metadata', 'saml20-sp-remote.php'), `<?php\n$metadata = ${php(remote)};\n`);
  };
  setServiceProviders([]);

  let child: ChildProcess | null = spawn(files.php, ['-S', `127.0.0.1:${port}`, '-t', files.www], {
    env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: conf, PHP_CLI_SERVER_WORKERS: '4' },
    stdio: ['ignore', 'ignore', 'pipe'],
    // Its own process group: PHP's built-in server forks its workers, and closing ends the whole group.
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
  await waitForPort(port, 10_000, () => (child?.exitCode != null ? `php -S exited: ${stderr}` : null));
  const metadataUrl = `${baseUrl}saml2/idp/metadata.php`;
  const res = await fetch(metadataUrl, { signal: AbortSignal.timeout(10_000) });
  const xml = await res.text();
  if (res.status !== 200)
    throw new Error(`SimpleSAMLphp's metadata answered ${res.status}: ${xml.slice(0, 500)}\n${stderr}`);
  const entityId = /entityID="([^"]+)"/.exec(xml)?.[1];
  if (!entityId) throw new Error(`SimpleSAMLphp's metadata has no entityID: ${xml.slice(0, 500)}`);
  return {
    baseUrl,
    entityId,
    metadataUrl,
    keyPem,
    certPem,
    setServiceProviders,
    async close() {
      if (!child) return;
      const group = -child.pid!;
      process.kill(group, 'SIGTERM');
      const killer = setTimeout(() => {
        try {
          process.kill(group, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 3000);
      await exited;
      clearTimeout(killer);
      child = null;
    },
  };
}

async function waitForPort(port: number, timeoutMs: number, failed: () => string | null): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const why = failed();
    if (why) throw new Error(why);
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`php -S did not listen on ${port} within ${timeoutMs} ms`);
}
