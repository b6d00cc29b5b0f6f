import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { tempDir } from '../temp-dir';
import { freePort } from '../free-port';
import { slapdBinaries } from './parts';

export interface TestDirectory {
  /** ldap://127.0.0.1:<port> */
  url: string;
  /** ldaps://localhost:<port>, with a certificate signed by `caFile`. */
  ldapsUrl: string;
  caFile: string;
  suffix: string;
  bindDn: string;
  bindPassword: string;
  /** Stops the server (the directory is down) and starts it again on the same ports. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface DirectoryUser {
  uid: string;
  password: string;
  mail?: string;
  cn: string;
}

/**
 * A real OpenLDAP server in a temp dir: slapd.conf with the core, cosine, inetorgperson and nis schemas and an
 * mdb database, users loaded with slapadd (passwords hashed by slappasswd), groups of names (member), a CA and
 * a server certificate made with openssl for ldaps:// and StartTLS. Listens on 127.0.0.1 only.
 */
export async function startDirectory(users: DirectoryUser[], groups: Record<string, string[]>): Promise<TestDirectory> {
  const bins = slapdBinaries();
  const dir = tempDir();
  const suffix = 'dc=example,dc=org';
  const bindDn = `cn=reader,${suffix}`;
  const bindPassword = 'reader secret 1';
  fs.mkdirSync(path.join(dir, 'db'));
  const caFile = makeCertificates(dir);
  const hash = (pw: string) => spawnSync(bins.slappasswd, ['-s', pw], { encoding: 'utf8' }).stdout.trim();
  const conf = path.join(dir, 'slapd.conf');
  fs.writeFileSync(
    conf,
    `include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile ${dir}/slapd.pid
TLSCACertificateFile ${dir}/ca.pem
TLSCertificateFile ${dir}/server.pem
TLSCertificateKeyFile ${dir}/server.key
database mdb
maxsize 10485760
suffix "${suffix}"
rootdn "cn=admin,${suffix}"
rootpw ${hash('admin secret 1')}
directory ${dir}/db
access to attrs=userPassword by self write by anonymous auth by * none
access to * by users read by * none
`,
  );
  const ldif = [
    `dn: ${suffix}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example`,
    `dn: ou=people,${suffix}\nobjectClass: organizationalUnit\nou: people`,
    `dn: ou=groups,${suffix}\nobjectClass: organizationalUnit\nou: groups`,
    `dn: ${bindDn}\nobjectClass: person\ncn: reader\nsn: reader\nuserPassword: ${hash(bindPassword)}`,
    ...users.map(
      (u) =>
        `dn: uid=${u.uid},ou=people,${suffix}\nobjectClass: inetOrgPerson\nuid: ${u.uid}\ncn: ${u.cn}\nsn: ${u.cn}${u.mail ? `\nmail: ${u.mail}` : ''}\nuserPassword: ${hash(u.password)}`,
    ),
    ...Object.entries(groups).map(
      ([cn, members]) =>
        `dn: cn=${cn},ou=groups,${suffix}\nobjectClass: groupOfNames\ncn: ${cn}\n${members.map((m) => `member: uid=${m},ou=people,${suffix}`).join('\n')}`,
    ),
  ].join('\n\n');
  fs.writeFileSync(path.join(dir, 'data.ldif'), `${ldif}\n`);
  const added = spawnSync(bins.slapadd, ['-f', conf, '-l', path.join(dir, 'data.ldif')], { encoding: 'utf8' });
  if (added.status !== 0) throw new Error(`slapadd: ${added.stderr}`);
  const [port, tlsPort] = [await freePort(), await freePort()];
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(
      bins.slapd,
      ['-f', conf, '-h', `ldap://127.0.0.1:${port}/ ldaps://127.0.0.1:${tlsPort}/`, '-d', '0'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr!.on('data', (d) => (err += String(d)));
    const deadline = Date.now() + 15_000;
    while (!(await listening(port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`slapd did not start: ${err.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const c = child as ChildProcess | null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (c.exitCode === null) c.kill('SIGKILL');
    child = null;
  };
  await start();
  return {
    url: `ldap://127.0.0.1:${port}`,
    ldapsUrl: `ldaps://localhost:${tlsPort}`,
    caFile,
    suffix,
    bindDn,
    bindPassword,
    stop,
    start,
    close: stop,
  };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** A CA and a server certificate for "localhost" and 127.0.0.1, made with openssl; returns the CA's file. */
function makeCertificates(dir: string): string {
  const run = (args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr}`);
  };
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=ferry test CA',
  ]);
  run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=localhost',
  ]);
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  run([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  ]);
  fs.chmodSync(path.join(dir, 'server.key'), 0o644);
  return path.join(dir, 'ca.pem');
}
