import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { HEADER_SP, startTestServer, TestServer } from '../helpers/server';

// One schema per route (docs/architecture.md, "How a request flows"): every route that takes input declares it in its
// chain, and no handler reads the request's parameters, query or body by itself.
let s: TestServer;
const root = path.resolve(__dirname, '../..');

test.before(async () => {
  s = await startTestServer({});
});
test.after(() => s.close());

const keysOf = (schema: unknown) => Object.keys((schema as z.ZodObject).shape ?? {}).sort();

test('every route with path parameters declares them, and every POST and PUT declares its body', () => {
  const routes = s.app.http.routes;
  assert.ok(routes.length > 70, `${routes.length} routes`);
  const problems: string[] = [];
  for (const r of routes) {
    const name = `${r.method} ${r.path}`;
    const named = [...r.path.matchAll(/[:*](\w+)/g)].map((m) => m[1]).sort();
    if (named.length) {
      if (!r.input?.params) problems.push(`${name}: path parameters without a schema`);
      else if (keysOf(r.input.params).join() !== named.join())
        problems.push(`${name}: the schema names ${keysOf(r.input.params).join()}, the path ${named.join()}`);
    }
    if ((r.method === 'POST' || r.method === 'PUT') && !r.input?.body)
      problems.push(`${name}: a body without a schema`);
  }
  assert.equal(problems, []);
});

test('the login routes are among them, every one public', () => {
  const login = s.app.http.routes.filter((r) => r.path === '/logout' || r.path.startsWith('/login'));
  assert.is(login.length, 11);
  assert.equal([...new Set(login.map((r) => r.level))], ['public']);
});

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
}

test('no route module reads the request parameters, query or body itself', () => {
  const files = sources('src/http/routes');
  assert.ok(files.length > 10);
  const reads = /\bctx\.(params|query|request\.body|request\.query)\b/;
  const found = files.flatMap((f) =>
    fs
      .readFileSync(path.join(root, f), 'utf8')
      .split('\n')
      .flatMap((line, i) => (reads.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
  );
  assert.equal(found, []);
});

// The typeof tests left in src/http look at what is not a route's input, each for the reason given.
const NOT_INPUT: Record<string, { count: number; why: string }> = {
  'src/http/middleware/utf8-body.ts': {
    count: 2,
    why: 'walks every parsed body, whatever its route, for invalid UTF-8',
  },
  'src/http/middleware/errors.ts': { count: 2, why: 'what was thrown, and its status' },
  'src/http/middleware/jsonp.ts': { count: 1, why: 'the answer being wrapped' },
  'src/http/presenters/filesender-config.ts': { count: 2, why: 'the config values presented, and script text' },
};

test('src/http checks no input by hand with typeof (type positions are fine)', () => {
  const valueTypeof = /typeof [^<>;,)]+ *[!=]==|[!=]== *typeof/g;
  const found: Record<string, number> = {};
  for (const f of sources('src/http')) {
    const n = fs.readFileSync(path.join(root, f), 'utf8').match(valueTypeof)?.length ?? 0;
    if (n) found[f] = n;
  }
  assert.equal(found, Object.fromEntries(Object.entries(NOT_INPUT).map(([f, { count }]) => [f, count])));
});

test('a failed parse answers 400 in the spec shape, naming the field', async () => {
  const bad = await s.request('GET', '/transfer/abc');
  assert.is(bad.status, 401, 'access comes first');
  const echo = await s.request('GET', '/lang?lang=en&lang=fr');
  assert.is(echo.status, 200, 'a lenient query argument given twice is none');
  const progress = await s.request('GET', `/legacyuploadprogress/${'k'.repeat(129)}`);
  assert.is(progress.status, 400);
  assert.equal([progress.json?.message, progress.json?.details], ['rest_bad_parameter', ['key']]);
  assert.type(progress.json?.uid, 'string');
  const login = await s.request('POST', '/login', { json: { user_id: 'someone' } });
  assert.is(login.status, 400);
  assert.equal([login.json?.message, login.json?.details], ['rest_missing_parameter', ['password']]);
});

test("a failed parse answers the catalogue's code each field names, as before schemas", async () => {
  const h = await startTestServer({ ...HEADER_SP, admin: ['boss'] });
  try {
    const boss = { 'X-Remote-User': 'boss', 'X-Remote-Email': 'boss@example.org' };
    const cases: [string, string, unknown, string, string[] | null][] = [
      ['PUT', '/config', {}, 'rest_missing_parameter', ['body']],
      ['PUT', '/config', [], 'bad_request_body', null],
      ['PUT', '/user/boss/quota', { quota: -1 }, 'rest_bad_parameter', ['quota']],
      ['PUT', '/user/boss/quota', {}, 'rest_missing_parameter', ['quota']],
      ['POST', '/user', { id: 'x' }, 'bad_email', ['email']],
      ['PUT', '/user/@me', { lang: 5 }, 'bad_lang_code', ['lang']],
      ['PUT', '/user/@me', { x: 1, y: 2 }, 'rest_bad_parameter', ['x', 'y']],
      ['GET', '/download?token=abc&files_ids=1,x', undefined, 'rest_bad_parameter', ['files_ids']],
      ['GET', '/transfer/0', undefined, 'rest_bad_parameter', ['id']],
      ['GET', '/transfer?limit=x', undefined, 'rest_bad_parameter', ['limit']],
    ];
    for (const [method, url, json, message, details] of cases) {
      const r = await h.request(method, url, json === undefined ? { headers: boss } : { headers: boss, json });
      assert.equal([r.status, r.json?.message, r.json?.details], [400, message, details], `${method} ${url}`);
    }
  } finally {
    await h.close();
  }
});

test.run();
