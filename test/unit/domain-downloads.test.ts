import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hashLinkPassword } from '../../src/domain/link-password';
import { domainOnFakes, userActor } from '../fakes/domain';
import { refused, sentTransfer } from '../helpers/domain-factories';

// The recipients' side (src/domain/downloads.ts), on the in-memory ports of test/fakes/: what a link opens,
// download limits, link passwords, and the owner told once when a recipient has everything.

const alice = userActor('alice');
const who = { ip: '198.51.100.7' };
const DAY = 86400;

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
  const download = async (whole: boolean) => {
    const a = await d.downloads.access(token);
    const claims = await d.downloads.started(a, a.files, 'file', who);
    if (whole) await d.downloads.ended(a, a.files, 'file', who, a.files, claims);
    else await d.downloads.cut(claims);
  };
  await download(true);
  await download(false);
  const resumed = await d.downloads.access(token);
  const claims = await d.downloads.started(resumed, resumed.files, 'file', who, false);
  await d.downloads.ended(resumed, resumed.files, 'file', who, resumed.files, claims);
  await refused(d.downloads.access(token), 'download_limit_reached');
  // The owner raises the limit: the link opens again at once.
  await d.sharing.setDownloadLimit(alice, await d.transfers.get(id), 3);
  await download(true);
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
  const results = await Promise.allSettled([1, 2].map(() => d.downloads.started(a, a.files, 'file', who)));
  assert.equal(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
});

test('a link password: asked for, a wrong one refused, the right one opens; the proof a browser keeps opens too', async () => {
  const d = domainOnFakes();
  const passwordHash = await hashLinkPassword('correct horse');
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
  const one = await d.downloads.started(a, [first], 'file', who);
  await d.downloads.ended(a, [first], 'file', who, [first], one);
  assert.is(told(), 0, 'one file of two');
  const both = await Promise.all([1, 2].map(() => d.downloads.started(a, [second], 'file', who)));
  await Promise.all(both.map((c) => d.downloads.ended(a, [second], 'file', who, [second], c)));
  assert.ok(told() > 0, 'told when the last file arrived');
  const once = told();
  const again = await d.downloads.started(a, a.files, 'archive', who);
  await d.downloads.ended(a, a.files, 'archive', who, a.files, again);
  assert.is(told(), once, 'not again');
  assert.equal(
    d.downloads.select(a, [second.id, second.id]).map((f) => f.id),
    [second.id],
  );
  assert.throws(() => d.downloads.select(a, [999_999]), /not found|file_not_found/i);
});

test.run();
