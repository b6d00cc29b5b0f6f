import * as assert from 'uvu/assert';
import { asUser, type TestServer } from './server';
import { inAWeek, sendChunks } from './upload-client';
import { generateClientEntropy } from '../../src/shared-crypto/format';

/**
 * The few things most HTTP tests make before they test anything: a Transfer (created, or uploaded and
 * available), and the mail it caused. One definition each, instead of a copy per test file.
 */

type Server = Pick<TestServer, 'request'>;

/** The body of POST /transfer: one 10-byte file to r@example.org from alice, expiring in a week; `over` replaces. */
export function transferBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    files: [{ name: 'a.txt', size: 10 }],
    recipients: ['r@example.org'],
    from: 'alice@example.org',
    expires: inAWeek(),
    ...over,
  };
}

/**
 * The fields of POST /transfer for an end-to-end encrypted Transfer as the pages send them: key version 3, the
 * password's bytes as given, 1000 PBKDF2 iterations, fresh client entropy. Each file still needs its iv and aead.
 */
export function encryptionFields() {
  return {
    encryption: true,
    encryption_key_version: 3,
    encryption_password_version: 1,
    encryption_password_encoding: 'none',
    encryption_password_hash_iterations: 1000,
    encryption_client_entropy: generateClientEntropy(),
  };
}

/** POST /transfer (by alice unless `headers` say otherwise); fails the test unless it answers 201. */
export async function createTransfer(s: Server, over: Record<string, unknown> = {}, headers = asUser('alice')) {
  const r = await s.request('POST', '/transfer', { headers, json: transferBody(over) });
  assert.is(r.status, 201, r.text);
  return r.json;
}

/**
 * A Transfer uploaded whole and made available: each file's bytes sent in chunks, each file completed, then the
 * Transfer. Answers the Transfer as PUT returned it and its first recipient's download token.
 */
export async function availableTransfer(
  s: Server,
  files: { name: string; data: Buffer; mime?: string }[],
  {
    headers = asUser('alice'),
    chunk = 5 * 1024 * 1024,
    parallel,
    over = {},
  }: { headers?: Record<string, string>; chunk?: number; parallel?: number; over?: Record<string, unknown> } = {},
) {
  const t = await createTransfer(
    s,
    { files: files.map((f) => ({ name: f.name, size: f.data.length, mime_type: f.mime })), ...over },
    headers,
  );
  for (const [i, f] of t.files.entries()) {
    await sendChunks(s.request, f.id, files[i].data, chunk, { headers, parallel });
    const done = await s.request('PUT', `/file/${f.id}`, { headers, json: { complete: true } });
    assert.is(done.status, 200, done.text);
  }
  const done = await s.request('PUT', `/transfer/${t.id}`, { headers, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  return { t: done.json, token: done.json.recipients[0].token as string };
}

/** The mail delivered since `from` (a count of the sink's messages), once the queue has run twice. */
export async function delivered<M>(
  s: Pick<TestServer, 'app'>,
  sink: { messages(): Promise<M[]> },
  from = 0,
): Promise<M[]> {
  await s.app.services.mailQueue.flush();
  await s.app.services.mailQueue.flush();
  return (await sink.messages()).slice(from);
}
