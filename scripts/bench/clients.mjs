// Clients for each server: the spec's upload procedure (plain or signed), the bare PUT loop, the tus PATCH loop.
import crypto from 'node:crypto';
import { call, MiB, openSource, pool } from './lib.mjs';

export const CHUNK = 5 * MiB;
export const USER = { 'X-Remote-User': 'bench', 'X-Remote-Email': 'bench@example.org' };

export function signedUrl(base, method, pathAndQuery, secret, body) {
  const u = new URL(base + pathAndQuery);
  u.searchParams.set('remote_application', 'bench');
  u.searchParams.set('remote_user', 'bench');
  u.searchParams.set('timestamp', String(Math.floor(Date.now() / 1000)));
  const args = [...u.searchParams.entries()]
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join('&');
  // The body goes through the HMAC as it is, not copied behind the head first.
  const hmac = crypto.createHmac('sha1', secret).update(`${method.toLowerCase()}&${u.host}${u.pathname}?${args}`);
  if (body?.length) hmac.update('&').update(body);
  u.searchParams.set('signature', hmac.digest('hex'));
  return u.toString();
}

/** POST /transfer for the given sizes; returns the parsed Transfer. */
export async function createTransfer(url, sizes, sign = null) {
  const body = Buffer.from(
    JSON.stringify({
      files: sizes.map((size, i) => ({ name: `f${i}.bin`, size })),
      recipients: ['r@example.org'],
      from: 'bench@example.org',
      expires: Math.floor(Date.now() / 1000) + 5 * 86400,
    }),
  );
  const target = sign ? signedUrl(url, 'POST', '/transfer', sign, body) : `${url}/transfer`;
  const r = await call(target, 'POST', { 'content-type': 'application/json', ...(sign ? {} : USER) }, body);
  if (r.status !== 201) throw new Error(`POST /transfer: ${r.status} ${r.body}`);
  return JSON.parse(r.body);
}

/** Steps 2–4 of the spec's procedure for one file of a Transfer, `inFlight` chunks at a time. */
export async function uploadFile(url, transfer, index, source, inFlight, sign = null) {
  const f = transfer.files[index];
  const src = await openSource(source, CHUNK);
  const chunks = Math.ceil(f.size / CHUNK);
  await pool(chunks, inFlight, (i) =>
    src.use(i * CHUNK, Math.min(CHUNK, f.size - i * CHUNK), async (body) => {
      const p = `/file/${f.id}/chunk/${i * CHUNK}`;
      const target = sign ? signedUrl(url, 'PUT', p, sign, body) : url + p;
      const r = await call(
        target,
        'PUT',
        {
          'content-type': 'application/octet-stream',
          'X-Service-File-Size': String(f.size),
          'X-Service-Chunk-Size': String(body.length),
          ...(sign ? {} : USER),
        },
        body,
      );
      if (r.status !== 200) throw new Error(`chunk ${i}: ${r.status} ${r.body}`);
    }),
  );
  await src.close();
  const doneBody = Buffer.from('{"complete":true}');
  const done = await call(
    sign ? signedUrl(url, 'PUT', `/file/${f.id}`, sign, doneBody) : `${url}/file/${f.id}`,
    'PUT',
    { 'content-type': 'application/json', ...(sign ? {} : USER) },
    doneBody,
  );
  if (done.status !== 200) throw new Error(`complete file: ${done.status} ${done.body}`);
}

export async function completeTransfer(url, transfer, sign = null) {
  const body = Buffer.from('{"complete":true}');
  const p = `/transfer/${transfer.id}`;
  const r = await call(
    sign ? signedUrl(url, 'PUT', p, sign, body) : url + p,
    'PUT',
    { 'content-type': 'application/json', ...(sign ? {} : USER) },
    body,
  );
  if (r.status !== 200) throw new Error(`complete transfer: ${r.status} ${r.body}`);
  return JSON.parse(r.body);
}

/** DELETE /transfer/{id}: closes it and deletes its files (the benchmark's disk space). */
export async function deleteTransfer(url, transfer) {
  const r = await call(`${url}/transfer/${transfer.id}`, 'DELETE', USER);
  if (r.status !== 200) throw new Error(`DELETE /transfer: ${r.status} ${r.body}`);
}

/**
 * The bare baseline: the same chunk PUTs, no procedure around them. `done`: then ask a sink started with
 * --digest for the file's digests, answered once it has hashed every byte (ferry's completion); resolves to them.
 */
export async function uploadBare(url, id, source, size, inFlight, done = false) {
  const src = await openSource(source, CHUNK);
  await pool(Math.ceil(size / CHUNK), inFlight, (i) =>
    src.use(i * CHUNK, Math.min(CHUNK, size - i * CHUNK), async (body) => {
      const r = await call(`${url}/file/${id}/chunk/${i * CHUNK}`, 'PUT', {}, body);
      if (r.status !== 200) throw new Error(`bare chunk ${i}: ${r.status}`);
    }),
  );
  await src.close();
  if (!done) return {};
  const r = await call(`${url}/file/${id}/done`, 'PUT');
  if (r.status !== 200) throw new Error(`bare done: ${r.status}`);
  return JSON.parse(r.body);
}

/** tus: one upload is a sequence of PATCHes, so "in flight" means that many uploads of a share of the data. */
export async function uploadTus(url, source, size, inFlight) {
  const src = await openSource(source, CHUNK);
  const share = Math.ceil(size / inFlight);
  await pool(inFlight, inFlight, async (u) => {
    const start = u * share;
    const len = Math.min(share, size - start);
    const created = await call(`${url}/files`, 'POST', { 'Tus-Resumable': '1.0.0', 'Upload-Length': String(len) });
    if (created.status !== 201) throw new Error(`tus create: ${created.status}`);
    const loc = new URL(created.headers.location, url).toString();
    for (let off = 0; off < len; off += CHUNK) {
      await src.use(start + off, Math.min(CHUNK, len - off), async (body) => {
        const r = await call(
          loc,
          'PATCH',
          { 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(off), 'Content-Type': 'application/offset+octet-stream' },
          body,
        );
        if (r.status !== 204) throw new Error(`tus patch: ${r.status} ${r.body}`);
      });
    }
  });
  await src.close();
}
