import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { retryDelay, GIVE_UP_AFTER_S } from '../../src/mail/queue';
import { headerSafe, redactTransportUrl } from '../../src/mail/transport';
import { humanSize } from '../../src/mail/render';

test('retries back off from 30 s, doubling, capped at 15 min, for days', () => {
  assert.equal([0, 1, 2, 3, 4, 5, 6, 10].map(retryDelay), [30, 60, 120, 240, 480, 900, 900, 900]);
  let t = 0;
  let attempts = 0;
  while (t < 3600) t += retryDelay(attempts++);
  assert.ok(attempts < 12, `an hour-long outage costs ${attempts} attempts`);
  assert.ok(GIVE_UP_AFTER_S >= 86400);
});

test('header values lose line breaks and direction overrides, and are capped', () => {
  assert.is(headerSafe('a\r\nBcc: x@y'), 'a Bcc: x@y');
  assert.is(headerSafe('evil\u202Etxt.exe'), 'evil txt.exe');
  assert.is(headerSafe('x'.repeat(300), 10).length, 10);
});

test('transport passwords never reach a log line', () => {
  assert.is(redactTransportUrl('smtp://user:s3cret@mail.example:587'), 'smtp://user:***@mail.example:587');
  assert.is(redactTransportUrl('smtp://mail.example:25'), 'smtp://mail.example:25');
});

test('sizes read as people expect', () => {
  assert.is(humanSize(999), '999 B');
  assert.is(humanSize(2_500_000), '2.5 MB');
  assert.is(humanSize(107_374_182_400), '107 GB');
});

test.run();
