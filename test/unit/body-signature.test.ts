import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import { streamingSignature } from '../../src/auth/body-signature';
import { matchingShape } from '../../src/auth/signature';
import { gapsOf } from '../../src/storage/positional-writer';
import type { AuthRequest } from '../../src/auth/principal';

const SECRET = 's'.repeat(64);

/** A signed chunk PUT as it arrives, signed the way `signedHost` is written (with or without the port). */
function chunk(body: Buffer, signedHost: string, user = 'alice'): { req: AuthRequest; signature: string } {
  const args = `remote_user=${user}&timestamp=1800000000`;
  const signature = crypto
    .createHmac('sha1', SECRET)
    .update(`put&${signedHost}/file/7/chunk/0?${args}`)
    .update('&')
    .update(body)
    .digest('hex');
  const rawQuery = `${args}&signature=${signature}`;
  const req: AuthRequest = {
    method: 'PUT',
    path: '/file/7/chunk/0',
    rawQuery,
    query: new URLSearchParams(rawQuery),
    headers: { host: 'files.example:8443' },
    remoteAddress: '127.0.0.1',
    body: Buffer.alloc(0),
    bodyFollows: true,
    cookies: {},
  };
  return { req, signature };
}

/** The streaming check of a body signed with SECRET, for base_url https://files.example:8443. */
const checkOf = (signature: string, req: AuthRequest, who: string, replayCheck: () => Promise<void>) =>
  streamingSignature(signature, [SECRET], req, 'https://files.example:8443', who, replayCheck);

const pieces = (b: Buffer, n: number) =>
  Array.from({ length: Math.ceil(b.length / n) }, (_, i) => b.subarray(i * n, (i + 1) * n));

test('a body fed in pieces matches its signature, whichever way the host was written; one byte off is refused 401; the replay check runs once, after the match', async () => {
  const body = crypto.randomBytes(300_000);
  for (const host of ['files.example:8443', 'files.example']) {
    const { req, signature } = chunk(body, host, `u-${host}`);
    let replays = 0;
    const s = checkOf(signature, req, `user:u-${host}`, async () => void replays++);
    for (const p of pieces(body, 65536)) s.see(p);
    await s.verified();
    await s.verified();
    assert.is(replays, 1);
    const bad = checkOf(signature, req, `user:u-${host}`, async () => void replays++);
    const off = Buffer.from(body);
    off[1000] ^= 1;
    for (const p of pieces(off, 65536)) bad.see(p);
    const e = await bad.verified().catch((x) => x);
    assert.equal([e.status, e.id], [401, 'auth_remote_signature_check_failed']);
    assert.is(replays, 1, 'no replay check for a wrong signature');
  }
});

test('the way a credential signed is learnt from a match: its next chunk is hashed that way only, and still checked', async () => {
  const body = crypto.randomBytes(1000);
  const { req, signature } = chunk(body, 'files.example', 'learner');
  // A JSON request of the same client, checked whole, teaches the way (here: Host without its port).
  assert.is(
    matchingShape(signature, [SECRET], { ...req, body, bodyFollows: false }, 'https://files.example:8443'),
    '1.0.0',
  );
  const first = checkOf(signature, req, 'user:learner', async () => {});
  assert.ok((first as unknown as { hmacs: unknown[] }).hmacs.length > 1, 'nothing learnt yet: every way');
  first.see(body);
  await first.verified();
  const next = checkOf(signature, req, 'user:learner', async () => {});
  assert.is((next as unknown as { hmacs: unknown[] }).hmacs.length, 1);
  next.see(body);
  await next.verified();
});

test('gapsOf: the parts of a chunk no recorded range covers', () => {
  assert.equal(gapsOf([], 0, 10), [[0, 10]]);
  assert.equal(gapsOf([[0, 10]], 0, 10), []);
  assert.equal(
    gapsOf(
      [
        [2, 4],
        [6, 8],
      ],
      0,
      10,
    ),
    [
      [0, 2],
      [4, 6],
      [8, 10],
    ],
  );
  assert.equal(
    gapsOf(
      [
        [6, 8],
        [0, 3],
      ],
      2,
      7,
    ),
    [[3, 6]],
  );
  assert.equal(gapsOf([[20, 30]], 0, 10), [[0, 10]]);
});

test.run();
