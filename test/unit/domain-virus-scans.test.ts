import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FakeScan } from '../fakes/domain';
import { domainOnFakes, userActor } from '../fakes/domain';
import { refused, sentTransfer } from '../helpers/domain-factories';

// Virus scanning of completed transfers (src/domain/virus-scans.ts, docs/sharing.md), on the in-memory ports of
// test/fakes/ with a scanner that answers by the file's size: what recipients see while a transfer is checked,
// when it is clean, infected (blocked or flagged) or the scanner is down (held, or let through).

const alice = userActor('alice');
const TWO_FILES = {
  files: [
    { name: 'fine.txt', size: 1500, mimeType: null, cid: 'c0' },
    { name: 'eicar.com', size: 500, mimeType: null, cid: 'c1' },
  ],
};
const infectedIfSmall: FakeScan = (bytes) =>
  bytes.length === 500 ? { clean: false, signature: 'Eicar-Test-Signature' } : { clean: true };

test('a completed transfer waits for its scan; clean: available, and the recipients mailed only then', async () => {
  const d = domainOnFakes({ scan: () => ({ clean: true }) });
  const { id, recipients } = await sentTransfer(d, alice);
  assert.is((await d.transfers.get(id)).status, 'uploading');
  assert.not.ok(
    d.mails.some((m) => m.startsWith('transferAvailable')),
    d.mails.join(),
  );
  await refused(d.downloads.access(recipients[0].token), 'transfer_being_checked');
  await d.virusScans!.kick();
  assert.is((await d.transfers.get(id)).status, 'available');
  assert.equal((await d.virusScans!.find(id))!.state, 'clean');
  assert.ok(d.mails.includes('transferAvailable:r@example.org'), d.mails.join());
  assert.ok(await d.downloads.access(recipients[0].token));
});

test('infected, on_infected "block": never available, the signature per file kept, the owner told', async () => {
  const d = domainOnFakes({ scan: infectedIfSmall, antivirus: { onInfected: 'block' } });
  const { id, recipients } = await sentTransfer(d, alice, TWO_FILES);
  await d.virusScans!.kick();
  const scan = (await d.virusScans!.find(id))!;
  const files = await d.world.repos.transfers.files(id);
  assert.equal(
    [scan.state, scan.findings],
    ['infected', [{ fileId: files.find((f) => f.name === 'eicar.com')!.id, signature: 'Eicar-Test-Signature' }]],
  );
  assert.ok(
    d.mails.some((m) => m.startsWith('virusFound')),
    d.mails.join(),
  );
  await refused(d.downloads.access(recipients[0].token), 'transfer_infected');
});

test('infected, on_infected "flag": available all the same, the finding kept', async () => {
  const d = domainOnFakes({ scan: infectedIfSmall, antivirus: { onInfected: 'flag' } });
  const { id, recipients } = await sentTransfer(d, alice, TWO_FILES);
  await d.virusScans!.kick();
  assert.is((await d.transfers.get(id)).status, 'available');
  assert.is((await d.virusScans!.find(id))!.findings.length, 1);
  assert.ok(await d.downloads.access(recipients[0].token));
});

test('the scanner down: held and tried again later (on_error "hold"), or let through unscanned ("allow")', async () => {
  let down = true;
  const d = domainOnFakes({ scan: () => (down ? new Error('clamd unreachable') : { clean: true }) });
  const { id } = await sentTransfer(d, alice);
  await d.virusScans!.kick();
  assert.equal((await d.virusScans!.find(id))!.state, 'held');
  assert.equal(await d.world.repos.virusScans.held(), [id]);
  down = false;
  await d.virusScans!.kick();
  assert.equal((await d.virusScans!.find(id))!.state, 'held', 'not before its next try');
  d.time.now += 24 * 3600;
  await d.virusScans!.kick();
  assert.equal((await d.virusScans!.find(id))!.state, 'clean');
  assert.is((await d.transfers.get(id)).status, 'available');

  const allow = domainOnFakes({ scan: () => new Error('clamd unreachable'), antivirus: { onError: 'allow' } });
  const other = await sentTransfer(allow, alice);
  await allow.virusScans!.kick();
  assert.equal((await allow.virusScans!.find(other.id))!.state, 'not_scanned');
  assert.is((await allow.transfers.get(other.id)).status, 'available');
});

test('scanning off: a transfer is available at completion, no scan recorded', async () => {
  const d = domainOnFakes();
  const { id } = await sentTransfer(d, alice);
  assert.is((await d.transfers.get(id)).status, 'available');
  assert.is(await d.virusScans!.find(id), undefined);
});

test.run();
