import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Api } from '../../web/lib/api';

// The pages' request bodies take their types from the routes' schemas (src/http/request-bodies.ts): a body
// the server would refuse does not compile. `npm run typecheck` checks the lines marked as errors below; this
// file runs the allowed calls against a fetch that records them.
test('the web client sends what the schemas take, and nothing else compiles', async () => {
  const sent: string[] = [];
  const api = new Api({
    fetch: async (url, init) => {
      sent.push(`${init?.method} ${url} ${String(init?.body)}`);
      return new Response('true', { status: 200 });
    },
  });
  await api.put(`/transfer/${7}`, { remind: true, download_limit: 3 });
  await api.put('/user', { lang: 'fr' });
  await api.put(`/user/${encodeURIComponent('a b')}/quota`, { quota: null });
  await api.post(`/transfer/${7}/recipient`, { recipient: 'r@example.org' });
  await api.post('/login', { user_id: 'u', password: 'p' });
  assert.equal(sent, [
    'PUT /transfer/7 {"remind":true,"download_limit":3}',
    'PUT /user {"lang":"fr"}',
    'PUT /user/a%20b/quota {"quota":null}',
    'POST /transfer/7/recipient {"recipient":"r@example.org"}',
    'POST /login {"user_id":"u","password":"p"}',
  ]);
  if (sent.length === 0) {
    // Never run: each line is a type error the compiler must report.
    // @ts-expect-error a flag sent as a string
    await api.put(`/transfer/${7}`, { remind: 'yes' });
    // @ts-expect-error a field the route refuses
    await api.put('/user', { language: 'fr' });
    // @ts-expect-error a route that takes no PUT
    await api.put('/nowhere', {});
    // @ts-expect-error the quota is bytes, not text
    await api.put(`/user/${'x'}/quota`, { quota: '5 GB' });
    // @ts-expect-error the password is missing
    await api.post('/login', { user_id: 'u' });
  }
});

test.run();
