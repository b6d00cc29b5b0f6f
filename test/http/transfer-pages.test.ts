import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, asUser, type TestServer } from '../helpers/server';
import { createTransfer } from '../helpers/factories';

// Lists and pages (docs/architecture.md): GET /transfer answers the whole list as FileSender's clients expect,
// and one page when asked with ?limit=N&offset=M or, by key, ?limit=N&after=<last id seen>; the admin lists page
// the same way.

let s: TestServer;
const alice = asUser('alice');
const bob = asUser('bob');
const boss = asUser('boss');
const ids: number[] = [];

test.before(async () => {
  s = await startTestServer({ ...HEADER_SP, admin: ['boss'] });
  for (let i = 0; i < 7; i++) {
    const t = await createTransfer(s, {
      subject: `t${i}`,
      recipients: [`r${i}@example.org`, `q${i}@example.org`],
      files: [
        { name: `f${i}.txt`, size: 10 + i },
        { name: `g${i}.txt`, size: 20 },
      ],
    });
    ids.push(t.id);
  }
  await createTransfer(s, { from: 'bob@example.org' }, bob);
});
test.after(() => s.close());

const get = async (path: string, headers = alice) => {
  const r = await s.request('GET', path, { headers });
  assert.is(r.status, 200, r.text);
  return r.json;
};

test('without a page GET /transfer is the whole list, newest first, each Transfer with its own files and recipients', async () => {
  const all = await get('/transfer');
  assert.equal(
    all.map((t: any) => t.id),
    [...ids].reverse(),
  );
  for (const t of all) {
    const i = ids.indexOf(t.id);
    assert.is(t.subject, `t${i}`);
    assert.equal(
      t.files.map((f: any) => f.name),
      [`f${i}.txt`, `g${i}.txt`],
    );
    assert.equal(
      t.recipients.map((r: any) => r.email),
      [`r${i}@example.org`, `q${i}@example.org`],
    );
  }
  // Each Transfer of the list is what GET /transfer/{id} says of it.
  assert.equal(all[2], await get(`/transfer/${all[2].id}`));
  assert.equal(await get('/transfer/@me'), all);
});

test('?limit and ?offset give one page of the same list', async () => {
  const all = await get('/transfer');
  assert.equal(await get('/transfer?limit=3'), all.slice(0, 3));
  assert.equal(await get('/transfer?limit=3&offset=3'), all.slice(3, 6));
  assert.equal(await get('/transfer?limit=3&offset=6'), all.slice(6));
  assert.equal(await get('/transfer?offset=5'), all.slice(5));
  assert.equal(await get('/transfer?limit=3&offset=70'), []);
});

test('?limit and ?after page by key: each page follows the last id seen, none skipped or repeated while Transfers come and go', async () => {
  const all = (await get('/transfer')).map((t: any) => t.id);
  assert.equal(
    (await get(`/transfer?limit=3&after=${all[2]}`)).map((t: any) => t.id),
    all.slice(3, 6),
  );
  // A walk through the list while a new Transfer arrives and one already seen is closed and deleted.
  const seen: number[] = [];
  let after: number | null = null;
  for (let round = 0; round < 10; round++) {
    const page: any[] = await get(`/transfer?limit=2${after === null ? '' : `&after=${after}`}`);
    if (page.length === 0) break;
    seen.push(...page.map((t) => t.id));
    after = page[page.length - 1].id;
    if (round === 1) {
      const extra = await createTransfer(s, { subject: 'meanwhile' });
      const r = await s.request('DELETE', `/transfer/${extra.id}`, { headers: alice });
      assert.is(r.status, 200, r.text);
      await createTransfer(s, { subject: 'meanwhile too' });
    }
  }
  assert.equal(seen, all, 'every Transfer of the walk once, in order');
  // The admin's lists: Transfers and guests newest first, users in the order of their ids.
  const every = (await get('/transfer/@all', boss)).map((t: any) => t.id);
  assert.equal(
    (await get(`/transfer/@all?limit=2&after=${every[1]}`, boss)).map((t: any) => t.id),
    every.slice(2, 4),
  );
  const users = (await get('/user/@all', boss)).map((u: any) => u.id);
  assert.equal(
    (await get(`/user/@all?limit=5&after=${encodeURIComponent(users[0])}`, boss)).map((u: any) => u.id),
    users.slice(1, 6),
  );
});

test('a bad page is refused in the spec error shape, naming the parameter', async () => {
  for (const [q, name] of [
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=x', 'limit'],
    ['offset=-1', 'offset'],
    ['limit=1&limit=2', 'limit'],
    ['limit=2&after=x', 'after'],
    ['limit=2&after=0', 'after'],
    ['limit=2&after=', 'after'],
    ['after=5&offset=2', 'offset'],
  ]) {
    const r = await s.request('GET', `/transfer?${q}`, { headers: alice });
    assert.is(r.status, 400, `${q}: ${r.text}`);
    assert.is(r.json.message, 'rest_bad_parameter');
    assert.equal(r.json.details, [name], q);
  }
});

test('the admin lists page too: every Transfer, every guest, every user', async () => {
  const every = await get('/transfer/@all', boss);
  assert.is(every.length, (await get('/transfer')).length + 1, "alice's and bob's");
  assert.equal(await get('/transfer/@all?limit=2&offset=1', boss), every.slice(1, 3));
  for (const g of ['g1@example.net', 'g2@example.net', 'g3@example.net']) {
    const r = await s.request('POST', '/guest', {
      headers: alice,
      json: { recipient: g, from: 'alice@example.org', expires: Math.floor(Date.now() / 1000) + 86400 },
    });
    assert.is(r.status, 201, r.text);
  }
  const guests = await get('/guest/@all', boss);
  assert.is(guests.length, 3);
  assert.equal(await get('/guest/@all?limit=2', boss), guests.slice(0, 2));
  assert.equal(await get('/guest/@all?limit=2&offset=1', boss), guests.slice(1, 3));
  // By key, newest first: the guests older than the one named, read from the database a page at a time.
  assert.equal(await get(`/guest/@all?limit=2&after=${guests[0].id}`, boss), guests.slice(1, 3));
  assert.equal(await get(`/guest/@all?limit=2&after=${guests[2].id}`, boss), []);
  const bad = await s.request('GET', '/guest/@all?limit=2&after=x', { headers: boss });
  assert.equal([bad.status, bad.json.message, bad.json.details], [400, 'rest_bad_parameter', ['after']]);
  const users = await get('/user/@all', boss);
  assert.ok(users.length >= 2);
  assert.equal(await get('/user/@all?limit=1&offset=1', boss), users.slice(1, 2));
  assert.is((await s.request('GET', '/transfer/@all?limit=2', { headers: alice })).status, 403);
});

test.run();
