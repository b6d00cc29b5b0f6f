import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ClientError } from './errors';

/** Who the client signs as: the server's address and the user's remote-user id and secret. */
export interface Credentials {
  /** The server's base URL, without a trailing slash. */
  url: string;
  user: string;
  secret: string;
}

/**
 * The `remote_config` string of GET /user, shown on the profile page: `{base_url}/|<user_id>|<secret>`. The
 * URL never holds a bare '|' and the secret is hex, so the user id is whatever lies between the first and the
 * last '|' (it may hold one itself).
 */
export function parseRemoteConfig(text: string): Credentials {
  const s = text.trim();
  const first = s.indexOf('|');
  const last = s.lastIndexOf('|');
  if (first < 0 || last === first)
    throw new ClientError('not a remote-user string: expected <url>|<user id>|<secret>, as the profile page shows it');
  const url = normaliseUrl(s.slice(0, first));
  const user = s.slice(first + 1, last);
  const secret = s.slice(last + 1);
  if (!user) throw new ClientError('the remote-user string has no user id');
  if (!/^[A-Za-z0-9]{16,256}$/.test(secret))
    throw new ClientError('the remote-user string has no valid secret at its end');
  return { url, user, secret };
}

/**
 * FileSender's `filesender.py.ini`, as its profile page offers it for download:
 *   [system] base_url = https://host/rest.php … [user] username = <id>, apikey = <secret>
 * Other keys (default_transfer_days_valid) are the server's business and are ignored here.
 */
export function parseFileSenderIni(text: string): Credentials {
  let section = '';
  const values: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const sec = /^\[([^\]]+)\]$/.exec(line);
    if (sec) {
      section = sec[1].trim().toLowerCase();
      continue;
    }
    const kv = /^([^=:]+)[=:](.*)$/.exec(line);
    if (kv) values[`${section}.${kv[1].trim().toLowerCase()}`] = kv[2].trim();
  }
  const url = values['system.base_url'];
  const user = values['user.username'];
  const secret = values['user.apikey'];
  const lacking = [!url && '[system] base_url', !user && '[user] username', !secret && '[user] apikey'].filter(Boolean);
  if (lacking.length) throw new ClientError(`not a filesender.py.ini: it has no ${lacking.join(', ')}`);
  if (!/^[A-Za-z0-9]{16,256}$/.test(secret)) throw new ClientError("the ini file's apikey is not an API secret");
  return { url: normaliseUrl(url), user, secret };
}

/** What `ferry login` was given: FileSender's ini text (it has sections) or the profile page's one-line string. */
export function parseLoginText(text: string): Credentials {
  return /^\s*\[[^\]]+\]/m.test(text) ? parseFileSenderIni(text) : parseRemoteConfig(text);
}

/** An http(s) URL without its trailing slash; anything else is refused with the reason. */
export function normaliseUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new ClientError(`not a URL: ${JSON.stringify(raw)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ClientError(`not an http(s) URL: ${raw}`);
  if (u.search || u.hash) throw new ClientError(`the server URL must not carry a query or fragment: ${raw}`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** `$XDG_CONFIG_HOME/ferry`, else `~/.config/ferry`: where `ferry login` keeps client.json and uploads resume. */
export function clientConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says a relative value is to be ignored.
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.config'), 'ferry');
}

export function clientConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(clientConfigDir(env), 'client.json');
}

/** Creates dir (and its parents) for the user alone, and makes an existing one so. */
export function privateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

/**
 * Writes a file readable by its owner only, replacing any earlier one at once: written under a temporary name
 * created 0600 (never readable by others, not even for a moment), then renamed.
 */
export function writePrivateFile(file: string, text: string): void {
  privateDir(path.dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(tmp, 0o600); // a umask cannot widen it, but an old file of that name could have been wider
  fs.renameSync(tmp, file);
}

export function saveCredentials(c: Credentials, env: NodeJS.ProcessEnv = process.env): string {
  const file = clientConfigFile(env);
  writePrivateFile(file, `${JSON.stringify({ url: c.url, user: c.user, secret: c.secret }, null, 2)}\n`);
  return file;
}

function readSaved(env: NodeJS.ProcessEnv): Partial<Credentials> {
  const file = clientConfigFile(env);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ClientError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    throw new ClientError(`${file} is not valid JSON; run ferry login again`);
  }
  const o = (j && typeof j === 'object' ? j : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return { url: str(o.url), user: str(o.user), secret: str(o.secret) };
}

export interface CredentialFlags {
  url?: string;
  user?: string;
}

/**
 * Each of url, user and secret from the first place that has it: the command's flags (--url, --user; never
 * the secret, which a command line shows to every user of the machine), then the environment (FERRY_URL,
 * FERRY_USER, FERRY_SECRET, or the whole string in FERRY_REMOTE_CONFIG), then the file `ferry login` wrote.
 */
export function resolveCredentials(flags: CredentialFlags, env: NodeJS.ProcessEnv = process.env): Credentials {
  const fromString = env.FERRY_REMOTE_CONFIG ? parseRemoteConfig(env.FERRY_REMOTE_CONFIG) : {};
  const saved = readSaved(env);
  const pick = (k: keyof Credentials, flag: string | undefined, envName: string) =>
    flag || env[envName] || (fromString as Partial<Credentials>)[k] || saved[k];
  const url = pick('url', flags.url, 'FERRY_URL');
  const user = pick('user', flags.user, 'FERRY_USER');
  const secret = pick('secret', undefined, 'FERRY_SECRET');
  if (!url && !user && !secret) {
    throw new ClientError(
      "not logged in: run ferry login '<API access string from your profile page>', or set FERRY_URL, FERRY_USER and FERRY_SECRET",
    );
  }
  if (!url || !user || !secret) {
    const lacking = [!url && 'server URL', !user && 'user', !secret && 'secret'].filter(Boolean).join(', ');
    throw new ClientError(
      `no ${lacking} to sign in with: run ferry login '<remote-user string from your profile page>', or set FERRY_URL, FERRY_USER and FERRY_SECRET`,
    );
  }
  return { url: normaliseUrl(url), user, secret };
}
