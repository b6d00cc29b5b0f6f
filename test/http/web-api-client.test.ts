import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Api, ApiError, NetworkError, isTransient } from '../../web/lib/api';
import { startTestServer, HEADER_SP, asUser, TestServer } from '../helpers/server';

// The browser's REST client against the real server: answers, error ids and details, unreachable servers.

let s: TestServer;
test.before(async () => {
  s = await startTestServer({ ...HEADER_SP });
});
test.after(() => s.close());

test('GET /info through the client', async () => {
  const api = new Api({ base: s.url });
  const info = await api.get<{ url: string; upload_chunk_size: number }>('/info');
  assert.is(info.url, s.url);
  assert.is(info.upload_chunk_size, 5242880);
});

test("errors come back as ApiError with the server's id, status and details", async () => {
  const api = new Api({ base: s.url, headers: asUser('alice', 'alice@example.org') });
  const err: ApiError = await api
    .post<ApiError>('/guest', {
      recipient: 'not an address',
      from: 'alice@example.org',
      expires: Math.floor(Date.now() / 1000) + 86400,
    })
    .catch((e: ApiError) => e);
  assert.instance(err, ApiError);
  assert.is(err.status, 400);
  assert.is(err.id, 'bad_email');
  assert.ok(Array.isArray(err.details));
  assert.not.ok(isTransient(err), 'a client error is not retried');
  const anon: ApiError = await new Api({ base: s.url }).get<ApiError>('/guest').catch((e: ApiError) => e);
  assert.is(anon.id, 'rest_authentication_required');
  assert.is(anon.status, 401);
});

test('the guest token and extra query arguments ride on every request', async () => {
  const api = new Api({ base: s.url, query: { vid: 'abc' } });
  assert.is(api.url('/echo/x', { key: 'k' }), `${s.url}/echo/x?vid=abc&key=k`);
  assert.ok(api.isGuest);
});

test('an unreachable server is a NetworkError, which is retried', async () => {
  const api = new Api({ base: 'http://127.0.0.1:9' });
  const err = await api.get('/info').catch((e: ApiError) => e);
  assert.instance(err, NetworkError);
  assert.ok(isTransient(err));
  assert.ok(isTransient(new ApiError('internal_error', 500)));
  assert.ok(isTransient(new ApiError('rate_limit_exceeded', 429)));
  assert.not.ok(
    isTransient(new ApiError('storage_not_enough_space_left', 507)),
    'a full disk does not heal by waiting',
  );
});

test.run();
