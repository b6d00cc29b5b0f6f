import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, asUser, TestServer, TestResponse } from '../helpers/server';
import { signedPath } from '../helpers/signing';
import { movableClock } from '../helpers/session';
import { patternBytes, sendChunks } from '../helpers/upload-client';
import { dbHash } from './fixture';
import type { AppOptions } from '../../src/app';

// The principals of the access tests and the world they attack: alice's resources, bob's, and their guests.

export type Who =
  | 'anonymous'
  | 'otherUser'
  | 'otherGuest'
  | 'ownersGuest'
  | 'recipientToken'
  | 'foreignChunkKey'
  | 'ownChunkKey'
  | 'expiredGuest'
  | 'remoteApp'
  | 'owner'
  | 'admin'
  | 'adminApp'
  /** A remote application without --admin acting (remote_user) for the admin boss; the admin app for boss. */
  | 'appAsAdmin'
  | 'adminAppAsAdmin';
/**
 * Every principal that must be refused alice's resources. ownersGuest is a valid guest of alice's own: a guest
 * acts on the Transfers it created, never on its inviter's. ownChunkKey is the right chunk key of the target
 * Transfer: it opens the few upload steps the spec names and nothing else.
 */
export const ATTACKERS: Who[] = [
  'anonymous',
  'otherUser',
  'otherGuest',
  'ownersGuest',
  'recipientToken',
  'foreignChunkKey',
  'ownChunkKey',
  'expiredGuest',
  'remoteApp',
];

/** Ids of one Transfer's worth of resources, and its owner. */
export interface Target {
  user: string;
  transfer: number;
  /** A File whose bytes are stored but not yet marked complete. */
  file: number;
  /** A File with nothing stored yet. */
  emptyFile: number;
  recipient: number;
  guest: number;
  /** The chunk-upload key of the Transfer (a File's uid). */
  key: string;
}

export interface Credentials {
  portal: string;
  ops: string;
  otherGuestToken: string;
  ownersGuestToken: string;
  expiredGuestToken: string;
  /** The download token of a recipient of alice's Transfer (here bob's own address). */
  recipientToken: string;
  /** The uid of a File of bob's Transfer: the chunk key of another Transfer. */
  foreignChunkKey: string;
  /** The uid of a File of alice's Transfer: its own chunk key. */
  ownChunkKey: string;
}

export interface Init {
  json?: unknown;
  body?: Buffer | string;
  headers?: Record<string, string>;
}

export interface AccessWorld {
  s: TestServer;
  time: ReturnType<typeof movableClock>;
  alice: Target;
  cred: Credentials;
  /** The request as `who` sends it: proxy headers, a guest token, a signature, or a token in the URL. */
  as(who: Who, method: string, path: string, init?: Init): Promise<TestResponse>;
  /** A fresh Transfer (two files, one uploaded; two recipients) and Guest of alice's, for requests that change them. */
  fresh(): Promise<Target>;
  /** Waits until background work (the mail queue) has stopped writing to the database. */
  settle(): Promise<string>;
}

export const CHUNK = 1024;
export const FILE_SIZE = 10;
const HEADERS_OF: Partial<Record<Who, Record<string, string>>> = {
  owner: asUser('alice'),
  otherUser: asUser('bob'),
  admin: asUser('boss'),
};

const withArgs = (path: string, args: string) => `${path}${path.includes('?') ? '&' : '?'}${args}`;

export async function startAccessWorld(
  config: Record<string, unknown> = {},
  opts: AppOptions = {},
): Promise<AccessWorld> {
  const time = movableClock();
  const s = await startTestServer(
    { ...HEADER_SP, admin: ['boss'], upload_chunk_size: CHUNK, ...config },
    { clock: time.clock, ...opts },
  );
  const host = new URL(s.url).host;
  const portal = await s.app.services.accounts.addRemoteApp('portal', false);
  const ops = await s.app.services.accounts.addRemoteApp('ops', true);
  const cred = { portal, ops } as Credentials;

  const signed = (app: string, secret: string, method: string, path: string, init: Init) => {
    const q = path.indexOf('?');
    const args: Record<string, string | number> = { remote_application: app, timestamp: time.clock() };
    if (q >= 0) for (const [k, v] of new URLSearchParams(path.slice(q + 1))) args[k] = v;
    const body = init.json !== undefined ? JSON.stringify(init.json) : init.body;
    const headers = { ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers };
    const p = signedPath({ method, host, path: q < 0 ? path : path.slice(0, q), args, secret, body });
    return s.request(method, p, { body, headers });
  };

  const as = (who: Who, method: string, path: string, init: Init = {}): Promise<TestResponse> => {
    const plain = (p: string, extra: Record<string, string> = {}) =>
      s.request(method, p, { ...init, headers: { ...extra, ...init.headers } });
    switch (who) {
      case 'anonymous':
        return plain(path);
      case 'otherGuest':
        return plain(withArgs(path, `vid=${cred.otherGuestToken}`));
      case 'ownersGuest':
        return plain(withArgs(path, `vid=${cred.ownersGuestToken}`));
      case 'expiredGuest':
        return plain(withArgs(path, `vid=${cred.expiredGuestToken}`));
      // A download token tried wherever a token or key is read.
      case 'recipientToken':
        return plain(withArgs(path, `token=${cred.recipientToken}&key=${cred.recipientToken}`));
      case 'foreignChunkKey':
        return plain(withArgs(path, `key=${cred.foreignChunkKey}`));
      case 'ownChunkKey':
        return plain(withArgs(path, `key=${cred.ownChunkKey}`));
      case 'remoteApp':
        return signed('portal', portal, method, path, init);
      case 'adminApp':
        return signed('ops', ops, method, path, init);
      case 'appAsAdmin':
        return signed('portal', portal, method, withArgs(path, 'remote_user=boss'), init);
      case 'adminAppAsAdmin':
        return signed('ops', ops, method, withArgs(path, 'remote_user=boss'), init);
      default:
        return plain(path, HEADERS_OF[who]);
    }
  };

  const createTransfer = async (user: string, recipients: string[]) => {
    const r = await s.request('POST', '/transfer', {
      headers: asUser(user),
      json: {
        files: [
          { name: `${user}-a.txt`, size: FILE_SIZE },
          { name: `${user}-b.txt`, size: FILE_SIZE },
        ],
        recipients,
        from: `${user}@example.org`,
        expires: time.clock() + 7 * 86400,
        subject: `${user}'s secret subject`,
      },
    });
    assert.is(r.status, 201, r.text);
    for (const c of await sendChunks(s.request, r.json.files[0].id, patternBytes(user, FILE_SIZE), CHUNK, {
      headers: asUser(user),
    }))
      assert.is(c.status, 200, c.text);
    return r.json;
  };
  const createGuest = async (user: string, expires?: number) => {
    const g = await s.request('POST', '/guest', {
      headers: asUser(user),
      json: {
        recipient: `guest-of-${user}@example.org`,
        from: `${user}@example.org`,
        options: [],
        ...(expires ? { expires } : {}),
      },
    });
    assert.is(g.status, 201, g.text);
    return g.json;
  };
  /** alice's records a case acts on: a Transfer to these recipients (a file sent, an empty one) and a guest. */
  const aliceTarget = async (recipients: string[]) => {
    const t = await createTransfer('alice', recipients);
    const g = await createGuest('alice');
    const target: Target = {
      user: 'alice',
      transfer: t.id,
      file: t.files[0].id,
      emptyFile: t.files[1].id,
      recipient: t.recipients[0].id,
      guest: g.id,
      key: t.files[1].uid,
    };
    return { t, g, target };
  };
  const fresh = async (): Promise<Target> => (await aliceTarget(['r1@example.org', 'r2@example.org'])).target;

  for (const u of ['alice', 'bob', 'boss'])
    assert.is((await s.request('GET', '/user', { headers: asUser(u) })).status, 200); // first sight records the user
  // bob is one of the recipients of alice's Transfer: being a recipient must not make him an owner.
  const { t, g, target: alice } = await aliceTarget(['bob@example.org', 'r2@example.org']);
  cred.recipientToken = t.recipients[0].token;
  cred.ownersGuestToken = g.token;
  cred.ownChunkKey = alice.key;
  const bobs = await createTransfer('bob', ['r@example.org']);
  cred.foreignChunkKey = bobs.files[0].uid;
  cred.otherGuestToken = (await createGuest('bob')).token;
  // alice's own guest, expired: once valid, its token must open nothing.
  cred.expiredGuestToken = (await createGuest('alice', time.clock() + 60)).token;
  time.advance(120);
  // Activity is recorded to the minute: seen again now, a refused request later finds nothing to update.
  for (const u of ['alice', 'bob', 'boss'])
    assert.is((await s.request('GET', '/user', { headers: asUser(u) })).status, 200);
  for (const [k, v] of Object.entries(cred)) assert.ok(typeof v === 'string' && v.length >= 32, k);

  const settle = async () => {
    // The world's own mail is delivered first: the queue worker marking it sent is no change an attacker made.
    await s.app.services.mailQueue.flush();
    let last = await dbHash(s);
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const now = await dbHash(s);
      if (now === last) return now;
      last = now;
    }
    throw new Error('the database kept changing');
  };
  return { s, time, alice, cred, as, fresh, settle };
}

/** A hash of every stored file's path and bytes: a refused upload must not have written any. */
export function storeHash(s: TestServer): string {
  const root = path.join(s.app.config.data_dir, 'files');
  const h = crypto.createHash('sha256');
  const walk = (dir: string, depth: number) => {
    if (depth > 3 || !fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      h.update(p);
      if (e.isDirectory()) walk(p, depth + 1);
      else h.update(fs.readFileSync(p));
    }
  };
  walk(root, 0);
  return h.digest('hex');
}

/** A multipart/form-data body with one file part, as POST /file/{id}/whole takes it. */
export function multipart(data: Buffer): { body: Buffer; headers: Record<string, string> } {
  const b = 'ferryaccessboundary';
  const body = Buffer.concat([
    Buffer.from(
      `--${b}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${b}--\r\n`),
  ]);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${b}` } };
}
