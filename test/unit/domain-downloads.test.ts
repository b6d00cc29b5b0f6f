import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import { domainOnFakes, userActor } from '../fakes/domain';
import { download, refused, sentTransfer } from '../helpers/domain-factories';

// The recipients' side (src/domain/downloads.ts), on the in-memory ports of test/fakes/: what a link opens,
// download limits, link passwords, and the owner told once when a recipient has everything.

const alice = userActor('alice');
const who = { ip: '198.51.100.7' };
const DAY = 86400;

/**
 * A link password's stored hash in the form hashLinkPassword writes, at a cost of N=1024 instead of 16384: the check
 * reads the cost from the hash, and three full-cost hashes take seconds on a loaded machine. The full cost is
 * tested where the hash is made (test/http/link-password.test.ts).
 */
function cheapLinkPasswordHash(password: string): string {
  const salt = crypto.randomBytes(16);
  const key = crypto.scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 });
  return `scrypt$1024$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

test('a link opens its own available Transfer; an unknown, withdrawn, expired or closed one says which', async () => {
  const d = domainOnFakes();
  const { id, recipients } = await sentTransfer(d, alice, { recipients: ['r@example.org', 'q@example.org'] });
  const access = await d.downloads.access(recipients[0].token);
  assert.equal([access.transfer.id, access.recipient.email, access.files.length], [id, 'r@example.org', 1]);
  await refused(d.downloads.access('x'.repeat(32)), 'transfer_not_found');
  await refused(d.downloads.access(42), 'transfer_not_found');
  await d.recipients.remove(alice, recipients[1]);
  await refused(d.downloads.access(recipients[1].token), 'recipient_withdrawn');
  d.time.now += 8 * DAY;
  await refused(d.downloads.access(recipients[0].token), 'transfer_expired');
  d.time.now -= 8 * DAY;
  await d.transfers.close(alice, await d.transfers.get(id), 'closed by owner');
  await refused(d.downloads.access(recipients[0].token), 'transfer_closed');
});

test('a download limit: each whole download counts; a cut one may be resumed; past the limit refused, and audited', async () => {
  const d = domainOnFakes();
  const { id, recipients } = await sentTransfer(d, alice, { sharing: { downloadLimit: 2, passwordHash: null } });
  const token = recipients[0].token;
  const once = async (opts: { from?: number; cutAfter?: number } = {}) => {
    const a = await d.downloads.access(token, undefined, { resuming: opts.from !== undefined });
    await download(d, a, a.files, { ...opts, ip: who.ip });
  };
  await once();
  await once({ cutAfter: 1000 });
  // The cut copy goes on where it stopped: it counts once its last byte is sent, as the second copy.
  await once({ from: 1000 });
  await refused(d.downloads.access(token), 'download_limit_reached');
  // The owner raises the limit: the link opens again at once.
  await d.sharing.setDownloadLimit(alice, await d.transfers.get(id), 3);
  await once();
  await refused(d.downloads.access(token), 'download_limit_reached');
  const events = (await d.transfers.auditLog(await d.transfers.get(id))).map((e) => e.event);
  assert.ok(events.includes('download_limit_changed'), events.join());
  assert.is(events.filter((e) => e === 'download_ended').length, 3);
  await refused(d.sharing.setDownloadLimit(alice, await d.transfers.get(id), -1), 'rest_bad_parameter');
});

test('two responses racing past the last download: one is sent, the other refused before any byte', async () => {
  const d = domainOnFakes();
  const { recipients } = await sentTransfer(d, alice, { sharing: { downloadLimit: 1, passwordHash: null } });
  const a = await d.downloads.access(recipients[0].token);
  const spans = a.files.map((f) => ({ fileId: f.id, size: f.size, start: 0, end: f.size }));
  // The loser waits a moment (src/domain/download-limits.ts, CLAIM_WAIT_MS) for the winner's end, then is refused.
  const results = await Promise.allSettled([1, 2].map(() => d.downloads.started(a, spans, 'file', who)));
  assert.equal(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
});

test('a link password: asked for, a wrong one refused, the right one opens; the proof a browser keeps opens too', async () => {
  const d = domainOnFakes();
  const passwordHash = cheapLinkPasswordHash('correct horse');
  const { recipients } = await sentTransfer(d, alice, { sharing: { downloadLimit: null, passwordHash } });
  const token = recipients[0].token;
  await refused(d.downloads.access(token), 'download_password_required');
  await refused(d.downloads.access(token, { password: 'wrong', ip: who.ip }), 'download_password_incorrect');
  const a = await d.downloads.access(token, { password: 'correct horse', ip: who.ip });
  const proof = await d.downloads.proofFor(a);
  assert.ok(proof);
  assert.is((await d.downloads.access(token, { proof: proof!, ip: who.ip })).recipient.token, token);
  await refused(d.downloads.access(token, { proof: `${proof}x`, ip: who.ip }), 'download_password_required');
});

test('the owner is told once that a recipient has every file, also when two downloads end at once', async () => {
  const d = domainOnFakes();
  const { recipients } = await sentTransfer(d, alice, {
    options: ['email_download_complete'],
    files: [
      { name: 'a.bin', size: 1500, mimeType: null, cid: 'c0' },
      { name: 'b.bin', size: 500, mimeType: null, cid: 'c1' },
    ],
  });
  const a = await d.downloads.access(recipients[0].token);
  const [first, second] = a.files;
  const told = () => d.mails.filter((m) => m.startsWith('downloadComplete:')).length;
  await download(d, a, [first], { ip: who.ip });
  assert.is(told(), 0, 'one file of two');
  await Promise.all([1, 2].map(() => download(d, a, [second], { ip: who.ip })));
  assert.ok(told() > 0, 'told when the last file arrived');
  const once = told();
  await download(d, a, a.files, { kind: 'archive', ip: who.ip });
  assert.is(told(), once, 'not again');
  assert.equal(
    d.downloads.select(a, [second.id, second.id]).map((f) => f.id),
    [second.id],
  );
  assert.throws(() => d.downloads.select(a, [999_999]), /not found|file_not_found/i);
});

test('a range resumed while the answer before it still holds its copy: the two halves are one file received whole', async () => {
  const d = domainOnFakes();
  const { recipients } = await sentTransfer(d, alice, { options: ['email_download_complete'] });
  const a = await d.downloads.access(recipients[0].token);
  const [f] = a.files;
  const told = () => d.mails.filter((m) => m.startsWith('downloadComplete:')).length;
  // The first half is sent; its answer is still being recorded when the client asks for the rest.
  const firstHalf = await d.downloads.started(a, [{ fileId: f.id, size: f.size, start: 0, end: 1500 }], 'file', who);
  firstHalf.sent = [1500];
  const rest = await d.downloads.started(a, [{ fileId: f.id, size: f.size, start: 1500, end: f.size }], 'file', who);
  rest.sent = [f.size - 1500];
  await d.downloads.ended(a, [f], 'file', who, rest, true);
  assert.is(told(), 0, 'the first half is not recorded yet');
  await d.downloads.ended(a, [f], 'file', who, firstHalf, true);
  assert.is(told(), 1, 'every byte went out: told once');
  await download(d, a, [f], { ip: who.ip });
  assert.is(told(), 1, 'not again');
});

test.run();
