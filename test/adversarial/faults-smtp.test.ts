import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { validateConfig } from '../../src/config/validate';
import { createApp, FerryApp } from '../../src/app';
import { listen, RunningServer } from '../../src/http/server';
import { silentLogger } from '../../src/log';
import { asUser, freePort, HEADER_SP, request, tempDir, testDatabaseUrl } from '../helpers/server';
import { startTestSink, addressOf } from '../helpers/mail';

// test/http/mail.test.ts shows one mail surviving one failed attempt and test/integration/mail-queue.test.ts the
// retry schedule; here a whole hour of outage on the real app: refused connections, then a server answering
// 451, a restart in between, many messages, then the server back with one address it refuses for good.
const GUESTS = 12;
const STEP_S = 60;

/** An SMTP server that is up but defers every recipient (greylisting, a full spool): 451, to be retried. */
async function deferringServer(port: number): Promise<SMTPServer> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onRcptTo(_address, _session, callback) {
      const err = new Error('4.3.2 try again later') as Error & { responseCode: number };
      err.responseCode = 451;
      callback(err);
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

test('SMTP down for an hour, the server restarted meanwhile: every mail goes out once when it is back; only a real 5xx is a bounce', async () => {
  const dir = tempDir();
  const port = await freePort();
  const cfg = validateConfig(
    {
      ...HEADER_SP,
      data_dir: path.join(dir, 'data'),
      purge_interval_s: 0,
      mail: { transport: `smtp://127.0.0.1:${port}` },
      database_url: await testDatabaseUrl(),
    },
    'test',
  );
  let now = 1_900_000_000;
  let app: FerryApp | null = null;
  let http: RunningServer | null = null;
  const start = async () => {
    const started = await createApp(cfg, { log: silentLogger, clock: () => now });
    app = started;
    http = await listen(started.http, '127.0.0.1', 0);
    started.start();
    return { app: started, url: http.url };
  };
  const stop = async () => {
    await http?.close(1000);
    await app?.close();
    app = null;
  };
  let deferring: SMTPServer | null = null;
  const sink = await startTestSinkOn(port);
  try {
    let { app: a, url } = await start();
    const addresses = [...Array.from({ length: GUESTS }, (_, i) => `guest${i}@example.org`), 'nobody@bounce.example'];
    for (const recipient of addresses) {
      const r = await request(url, 'POST', '/guest', {
        headers: asUser('alice'),
        json: { recipient, from: 'alice@example.org' },
      });
      assert.is(r.status, 201, r.text);
    }
    const rows = () =>
      a.db.query<{ to_addr: string; status: string; attempts: number }>(
        `SELECT to_addr, status, attempts FROM mail_queue ORDER BY id`,
      );
    const bounces = async () =>
      (await a.db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM tracking_errors WHERE type = 'bounce'`))[0];
    const passTime = async (seconds: number) => {
      for (let t = 0; t < seconds; t += STEP_S) {
        now += STEP_S;
        await a.services.mailQueue.flush();
      }
    };
    // Half an hour of refused connections, a restart, then half an hour of 451 answers.
    await passTime(1800);
    await stop();
    ({ app: a, url } = await start());
    deferring = await deferringServer(port);
    await passTime(1800);
    await new Promise<void>((resolve) => deferring!.close(() => resolve()));
    deferring = null;
    for (const r of await rows()) {
      assert.is(r.status, 'pending', `${r.to_addr} still queued after an hour`);
      assert.ok(r.attempts >= 6, `${r.to_addr}: retried through the hour (${r.attempts} attempts)`);
    }
    assert.is((await bounces()).n, 0, 'a dead or deferring server is no bounce');

    // The server is back: the next retry delivers everything once; the address it refuses is the one bounce.
    await sink.start();
    await passTime(15 * 60);
    const delivered = (await sink.waitFor(GUESTS)).map((m) => addressOf(m.to)).sort();
    await passTime(3 * STEP_S); // a second copy, if any, would come now
    assert.equal(delivered, addresses.slice(0, GUESTS).sort());
    assert.is((await sink.messages()).length, GUESTS, 'nothing sent twice');
    assert.equal(
      (await rows()).map((r) => [r.to_addr, r.status]),
      addresses.map((to) => [to, to.endsWith('@bounce.example') ? 'failed' : 'sent']),
    );
    assert.is((await bounces()).n, 1);
    const guest = (await request(url, 'GET', '/guest', { headers: asUser('alice') })).json.find(
      (g: any) => g.email === 'nobody@bounce.example',
    );
    assert.is(guest.errors.length, 1);
    assert.is(guest.errors[0].type, 'bounce');
  } finally {
    await stop();
    await new Promise<void>((resolve) => (deferring ? deferring.close(() => resolve()) : resolve()));
    await sink.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The real sink, started only when told to (its port is fixed in the config from the start). */
async function startTestSinkOn(port: number) {
  let running: Awaited<ReturnType<typeof startTestSink>> | null = null;
  return {
    async start() {
      running = await startTestSink({ port, rejectRecipients: /@bounce\.example$/ });
    },
    waitFor: (n: number) => running!.waitFor(n),
    messages: () => running!.messages(),
    close: async () => running?.close(),
  };
}

test.run();
