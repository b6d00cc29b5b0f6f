import crypto from 'node:crypto';
import { TABLES } from '../../src/db/schema';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import type { TestServer, TestResponse } from '../helpers/server';
import { asUser } from '../helpers/server';
import { sendChunks, patternBytes } from '../helpers/upload-client';

export const alice = asUser('alice');
export const bob = asUser('bob');
export const boss = asUser('boss');

/** A hash of every row of every table: a refused request must leave it unchanged. */
export async function dbHash(s: TestServer, skip: string[] = []): Promise<string> {
  return Object.entries(await tableHashes(s, skip))
    .map(([t, h]) => `${t}:${h}`)
    .join(' ');
}

/** One hash per table, so a failure names the table that changed (every table, on SQLite and PostgreSQL alike). */
export async function tableHashes(s: TestServer, skip: string[] = []): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of TABLES.filter((t) => !skip.includes(t.name))) {
    const h = crypto.createHash('sha256');
    for (const row of await s.app.db.query(`SELECT * FROM ${t.name} ORDER BY ${t.orderBy.join(', ')}`))
      h.update(JSON.stringify(row));
    out[t.name] = h.digest('hex').slice(0, 12);
  }
  return out;
}

/** The spec's error shape: message id, a hex uid, details null or an array. */
export function assertErrorShape(r: TestResponse, label: string): void {
  assert.ok(
    r.json && typeof r.json === 'object' && !Array.isArray(r.json),
    `${label}: JSON error body, got ${r.text.slice(0, 200)}`,
  );
  assert.type(r.json.message, 'string', label);
  assert.match(r.json.message, /^[a-z_]+$/, label);
  assert.match(r.json.uid, /^[0-9a-f]{8,}$/, label);
  assert.ok(r.json.details === null || Array.isArray(r.json.details), `${label}: details`);
}

export interface World {
  transfer: any;
  available: any;
  token: string;
  guestToken: string;
  guest: any;
}

/** alice owns an open Transfer and an available one (with a recipient token), and invited a guest. */
export async function buildWorld(s: TestServer): Promise<World> {
  const mk = async (name: string) => {
    const r = await s.request('POST', '/transfer', {
      headers: alice,
      json: transferBody({ files: [{ name, size: 10 }] }),
    });
    assert.is(r.status, 201, r.text);
    return r.json;
  };
  const transfer = await mk('open.txt');
  const available = await mk('done.txt');
  for (const r of await sendChunks(s.request, available.files[0].id, patternBytes('w', 10), 1024, { headers: alice }))
    assert.is(r.status, 200);
  assert.is(
    (await s.request('PUT', `/file/${available.files[0].id}`, { headers: alice, json: { complete: true } })).status,
    200,
  );
  const c = await s.request('PUT', `/transfer/${available.id}`, { headers: alice, json: { complete: true } });
  assert.is(c.status, 200, c.text);
  const g = await s.request('POST', '/guest', {
    headers: alice,
    json: { recipient: 'guest@example.org', from: 'alice@example.org', options: [] },
  });
  assert.is(g.status, 201, g.text);
  return { transfer, available: c.json, token: c.json.recipients[0].token, guest: g.json, guestToken: g.json.token };
}
