import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { clientWorld, runFerry } from '../helpers/client-world';
import { asUser } from '../helpers/server';
import { until } from '../helpers/until';
import { EICAR, startClamd } from '../helpers/system/clamd';

// `ferry send` and `ferry get` against a server that scans for viruses (docs/sharing.md, Virus scanning): send
// says the transfer is being checked; get of a blocked transfer says why in one line, exit 1; a clean one works.

test('send says "being checked"; get of an infected transfer is refused in one line, of a clean one works', async () => {
  const clamd = await startClamd();
  const w = await clientWorld('ferry-client-virus-', { antivirus: { clamd: clamd.url } });
  try {
    assert.is((await runFerry(w, ['login', w.remoteConfig])).code, 0);
    fs.writeFileSync(path.join(w.home, 'eicar.com'), EICAR);
    fs.writeFileSync(path.join(w.home, 'fine.txt'), 'nothing to see\n');
    const sent = await runFerry(w, ['send', 'eicar.com', '--link', '--json']);
    assert.is(sent.code, 0, sent.stderr);
    const r = JSON.parse(sent.stdout);
    assert.is(r.status, 'checking');
    const view = async (id: number) =>
      (await w.srv.request('GET', `/transfer/${id}`, { headers: asUser('alice') })).json;
    await until('the scan', async () => (await view(r.transfer_id)).virus_scan.status === 'infected', 30_000);
    const refused = await runFerry(w, ['get', r.link, '-o', path.join(w.home, 'out1')]);
    assert.is(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /transfer_infected|virus/);
    assert.is(refused.stderr.trim().split('\n').length, 1, refused.stderr);

    const human = await runFerry(w, ['send', 'fine.txt', '--link']);
    assert.is(human.code, 0, human.stderr);
    assert.match(human.stdout, 'being checked for viruses');
    const link = /^link: (\S+)/m.exec(human.stdout)![1];
    const id = Number(/transfer (\d+) sent/.exec(human.stdout)![1]);
    await until('the scan', async () => (await view(id)).virus_scan.status === 'clean', 30_000);
    const got = await runFerry(w, ['get', link, '-o', path.join(w.home, 'out2')]);
    assert.is(got.code, 0, got.stderr);
    assert.is(fs.readFileSync(path.join(w.home, 'out2', 'fine.txt'), 'utf8'), 'nothing to see\n');
  } finally {
    await w.close();
    await clamd.stop();
  }
});

test.run();
