import * as assert from 'uvu/assert';
import type { TestServer } from './server';
import { FileSenderPy } from './filesender-py';

/**
 * What a person does with the profile page's API string: downloads filesender.py.ini with their browser
 * session, then lets filesender.py send a file with it (signed requests, no session). Returns the transfer.
 */
export async function sendWithProfileIni(
  s: TestServer,
  cookie: string,
  from: string,
): Promise<{ id: number; status: string }> {
  const r = await s.request('GET', '/user/@me/filesender-python-client-configuration-file', {
    headers: { Cookie: cookie },
  });
  assert.is(r.status, 200, r.text);
  const ini: Record<string, string> = {};
  for (const line of r.text.split('\n')) {
    const m = /^\s*(\w+)\s*=\s*(.*)$/.exec(line);
    if (m) ini[m[1]] = m[2].trim().replace(/%%/g, '%');
  }
  const c = new FileSenderPy({ baseUrl: ini.base_url, username: ini.username, apikey: ini.apikey });
  const data = Buffer.from('a report sent by filesender.py\n');
  const post = await c.postTransfer(
    [{ name: 'report.txt', size: data.length }],
    'friend@example.org',
    from,
    Math.floor(Date.now() / 1000) + 5 * 86400,
  );
  const t = post.created;
  await c.putChunk(t, t.files[0], data, 0);
  await c.fileComplete(t, t.files[0]);
  await c.transferComplete(t);
  const done = (await c.call({ method: 'get', path: `/transfer/${t.id}` })) as { id: number; status: string };
  assert.is(done.status, 'available');
  return done;
}
