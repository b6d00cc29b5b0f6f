import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, asUser, sql, TestServer } from '../helpers/server';
import type { Logger } from '../../src/log';
import { assertErrorShape } from './fixture';

// An internal error is logged as one line carrying the uid the client got; its stack trace only with
// log.debug on. Before, every internal error wrote its stack to the log.

/** A line of a stack trace as V8 writes it. */
const STACK_LINE = /\n\s+at \S/;

function capturing(): { lines: string[]; log: Logger } {
  const lines: string[] = [];
  return { lines, log: { info: (m) => lines.push(m), error: (m) => lines.push(m) } };
}

/** A server whose database lost a table under it: reading a user's Transfers fails inside. */
async function broken(debug: boolean): Promise<{ s: TestServer; lines: string[] }> {
  const { lines, log } = capturing();
  const s = await startTestServer({ ...HEADER_SP, log: { format: 'text', file: null, debug } }, { log });
  assert.is((await s.request('GET', '/transfer', { headers: asUser('alice') })).status, 200);
  await sql(s, 'ALTER TABLE transfers RENAME TO transfers_gone');
  return { s, lines };
}

test('without log.debug: one line with the uid, no stack trace anywhere in the log', async () => {
  const { s, lines } = await broken(false);
  try {
    const r = await s.request('GET', '/transfer', { headers: asUser('alice') });
    assert.is(r.status, 500, r.text);
    assertErrorShape(r, 'internal error');
    assert.is(r.json.message, 'internal_error');
    assert.not.match(r.text, /\bat \S+ \(/, 'no stack in the answer');
    const line = lines.find((l) => l.includes(`uid=${r.json.uid}`));
    assert.ok(line, `the error is logged with its uid: ${lines.join('\n')}`);
    assert.match(line!, /internal_error/);
    assert.match(line!, /transfers/, 'the cause is named');
    for (const l of lines) assert.not.match(l, STACK_LINE, `a stack trace reached the log: ${l.slice(0, 300)}`);
  } finally {
    await s.close();
  }
});

test('with log.debug on: the stack trace is logged too', async () => {
  const { s, lines } = await broken(true);
  try {
    const r = await s.request('GET', '/transfer', { headers: asUser('alice') });
    assert.is(r.status, 500, r.text);
    const line = lines.find((l) => l.includes(`uid=${r.json.uid}`));
    assert.ok(line);
    assert.match(line!, STACK_LINE);
  } finally {
    await s.close();
  }
});

test.run();
