import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { asUser, freePort, HEADER_SP, startTestServer, TestServer } from '../helpers/server';
import { patternBytes, sendChunks } from '../helpers/upload-client';
import { parsePrometheusText } from '../helpers/prometheus-text';

const scrape = async (s: TestServer) => {
  const r = await s.request('GET', '/metrics');
  assert.is(r.status, 200, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(r.text);
};

/**
 * Scrapes until `ok` holds (bounded): the mail worker started by the server may hold a message mid-attempt while
 * the test's flush() returns, and a purge pass runs on its own timer.
 */
async function scrapeUntil(s: TestServer, ok: (m: Awaited<ReturnType<typeof scrape>>) => boolean, what: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const m = await scrape(s);
    if (ok(m)) return m;
    if (Date.now() > deadline) assert.unreachable(`not seen within 10 s: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('GET /metrics: off by default, an unknown endpoint like any other', async () => {
  const s = await startTestServer();
  try {
    const r = await s.request('GET', '/metrics');
    assert.is(r.status, 404);
    assert.is(r.json.message, 'rest_endpoint_not_found');
    assert.is((await s.request('GET', '/rest.php/metrics')).status, 404);
  } finally {
    await s.close();
  }
});

test('GET /metrics: refused to a peer not in metrics.allow, and to a client a local proxy forwards', async () => {
  const other = await startTestServer({ metrics: { allow: ['10.0.0.0/8', '192.0.2.7'] } });
  try {
    const r = await other.request('GET', '/metrics');
    assert.is(r.status, 403, r.text);
    assert.is(r.json.message, 'rest_access_forbidden');
    assert.not.ok(r.text.includes('ferry_'));
  } finally {
    await other.close();
  }
  const local = await startTestServer({ metrics: { allow: ['127.0.0.1', '::1'] } });
  try {
    // A reverse proxy on the same host names the client it serves: that client is checked, not the proxy.
    for (const headers of [{ 'X-Forwarded-For': '203.0.113.9' }, { 'X-Real-IP': '203.0.113.9' }] as Record<
      string,
      string
    >[]) {
      const r = await local.request('GET', '/metrics', { headers });
      assert.is(r.status, 403, r.text);
    }
    assert.is((await local.request('GET', '/metrics')).status, 200);
  } finally {
    await local.close();
  }
});

test('GET /metrics: Prometheus text that follows an upload: requests by route pattern and status, bytes, chunks, transfers by status', async () => {
  const s = await startTestServer({ ...HEADER_SP, metrics: { allow: ['127.0.0.0/8', '::1'] } });
  const s2 = await startTestServer({ ...HEADER_SP, metrics: { allow: ['127.0.0.1'] } });
  try {
    const before = await scrape(s);
    for (const name of [
      'ferry_http_requests_total',
      'ferry_upload_bytes_total',
      'ferry_chunks_received_total',
      'ferry_storage_errors_total',
      'ferry_mail_send_failures_total',
      'ferry_purge_runs_total',
    ])
      assert.is(before.types.get(name), 'counter', name);
    assert.is(before.types.get('ferry_http_request_duration_seconds'), 'histogram');
    for (const name of [
      'ferry_transfers',
      'ferry_mail_queue_depth',
      'ferry_hashing_backlog',
      'ferry_list_reads_waiting',
      'nodejs_eventloop_lag_seconds',
      'process_resident_memory_bytes',
    ])
      assert.is(before.types.get(name), 'gauge', name);
    assert.is(before.value('ferry_upload_bytes_total'), 0);

    const alice = asUser('alice');
    const req = (m: string, p: string, init: Parameters<typeof s.request>[2] = {}) =>
      s.request(m, p, { ...init, headers: { ...alice, ...(init.headers ?? {}) } });
    const data = patternBytes('metrics', 10_000);
    const t = await req('POST', '/transfer', {
      json: transferBody({
        files: [{ name: 'a.bin', size: data.length }],
        recipients: ['bob@example.org'],
        subject: 's',
      }),
    });
    assert.is(t.status, 201, t.text);
    const fileId = t.json.files[0].id;
    for (const r of await sendChunks(req, fileId, data, 4096)) assert.is(r.status, 200, r.text);
    assert.is((await req('GET', `/transfer/${t.json.id}/nonsense-${'x'.repeat(10)}`)).status, 404);

    const after = await scrape(s);
    assert.is(after.value('ferry_upload_bytes_total'), data.length);
    assert.is(after.value('ferry_chunks_received_total'), 3);
    assert.is(
      after.value('ferry_http_requests_total', { method: 'PUT', route: '/file/:id/chunk/:offset', status: '200' }),
      3,
    );
    assert.is(after.value('ferry_http_requests_total', { method: 'POST', route: '/transfer', status: '201' }), 1);
    assert.is(
      after.value('ferry_http_request_duration_seconds_count', { method: 'PUT', route: '/file/:id/chunk/:offset' }),
      3,
    );
    assert.is(
      after.value('ferry_http_request_duration_seconds_bucket', {
        method: 'PUT',
        route: '/file/:id/chunk/:offset',
        le: '+Inf',
      }),
      3,
    );
    assert.is(after.value('ferry_transfers', { status: 'uploading' }), 1);
    // Label values are route patterns, never a raw path with its ids or tokens.
    for (const sample of after.samples)
      if (sample.labels.route) assert.not.match(sample.labels.route, /\d{2,}|nonsense/, sample.labels.route);
    assert.ok(after.value('ferry_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }) >= 1);

    // Completed, mailed (no transport: logged, counted as handed over) and downloaded.
    assert.is((await req('PUT', `/file/${fileId}`, { json: { complete: true } })).status, 200);
    assert.is((await req('PUT', `/transfer/${t.json.id}`, { json: { complete: true } })).status, 200);
    await s.app.services.mailQueue.flush();
    const dl = await s.request('GET', `/download?token=${t.json.recipients[0].token}&files_ids=${fileId}`);
    assert.is(dl.status, 200);
    // The download's bytes are counted as the server's stream ends, which may come just after the client has read
    // the last byte: waited for like the mail.
    const done = await scrapeUntil(
      s,
      (m) =>
        m.value('ferry_mail_sent_total') >= 1 &&
        m.value('ferry_mail_queue_depth') === 0 &&
        m.value('ferry_download_bytes_total') >= data.length,
      'the mail sent and the download counted',
    );
    assert.is(done.value('ferry_transfers', { status: 'available' }), 1);
    assert.is(done.value('ferry_transfers', { status: 'uploading' }), 0);

    // Each app instance counts only its own requests.
    const other = await scrape(s2);
    assert.is(other.value('ferry_upload_bytes_total'), 0);
    assert.is(other.value('ferry_http_requests_total', { method: 'POST', route: '/transfer', status: '201' }), 0);
  } finally {
    await s.close();
    await s2.close();
  }
});

test('GET /metrics: mail that cannot be delivered counts as a failure and stays queued; purge passes are counted', async () => {
  const closed = await freePort();
  const s = await startTestServer({
    ...HEADER_SP,
    purge_interval_s: 1,
    mail: { transport: `smtp://127.0.0.1:${closed}` },
    metrics: { allow: ['127.0.0.1', '::1'] },
  });
  try {
    const alice = asUser('alice');
    const g = await s.request('POST', '/guest', {
      headers: alice,
      json: {
        recipient: 'guest@example.org',
        from: 'alice@example.org',
        subject: 's',
        options: { guest: ['email_guest_created'] },
      },
    });
    assert.is(g.status, 201, g.text);
    await s.app.services.mailQueue.flush();
    // A refused connection is a temporary failure, and the message waits in the queue for the next attempt.
    const m = await scrapeUntil(
      s,
      (x) => x.value('ferry_mail_send_failures_total', { kind: 'temporary' }) >= 1,
      'a temporary mail failure',
    );
    assert.ok(m.value('ferry_mail_queue_depth') >= 1);
    assert.is(m.value('ferry_mail_sent_total'), 0);
    const p = await scrapeUntil(s, (x) => x.value('ferry_purge_runs_total', { result: 'ok' }) >= 1, 'a purge pass');
    assert.is(p.types.get('ferry_purge_removed_total'), 'counter');
  } finally {
    await s.close();
  }
});

test.run();
