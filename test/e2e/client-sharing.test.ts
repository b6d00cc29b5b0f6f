import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { clientWorld, runFerry } from '../helpers/client-world';
import { asUser } from '../helpers/server';
import { until } from '../helpers/until';

// `ferry send --download-limit N` (docs/sharing.md): the limit reaches the server, `ferry get` downloads
// within it, and once the link is spent it says so in one line, exit 1.

test('send --download-limit 1 --link: one get works, the next is refused in one line; a bad value is a usage error', async () => {
  const w = await clientWorld('ferry-client-sharing-');
  try {
    assert.is((await runFerry(w, ['login', w.remoteConfig])).code, 0);
    fs.writeFileSync(path.join(w.home, 'once.txt'), 'only once\n');
    const bad = await runFerry(w, ['send', 'once.txt', '--link', '--download-limit', '0']);
    assert.is(bad.code, 1);
    assert.match(bad.stderr, '--download-limit: a whole number from 1');
    const sent = await runFerry(w, ['send', 'once.txt', '--link', '--download-limit', '1', '--json']);
    assert.is(sent.code, 0, sent.stderr);
    const id = JSON.parse(sent.stdout).transfer_id ?? JSON.parse(sent.stdout).id;
    const t = await w.srv.request('GET', `/transfer/${id}`, { headers: asUser('alice') });
    assert.is(t.json.download_limit, 1);
    const link = t.json.recipients[0].download_url;
    const out1 = path.join(w.home, 'first');
    const got = await runFerry(w, ['get', link, '-o', out1]);
    assert.is(got.code, 0, got.stderr);
    assert.is(fs.readFileSync(path.join(out1, 'once.txt'), 'utf8'), 'only once\n');
    await until(
      'the download counted',
      async () =>
        (await w.srv.request('GET', `/transfer/${id}`, { headers: asUser('alice') })).json.download_counts.length === 1,
      10_000,
    );
    const again = await runFerry(w, ['get', link, '-o', path.join(w.home, 'second')]);
    assert.is(again.code, 1, again.stderr);
    assert.match(again.stderr, /download_limit_reached|no downloads left/);
    assert.is(again.stderr.trim().split('\n').length, 1, again.stderr);
  } finally {
    await w.close();
  }
});

test.run();
