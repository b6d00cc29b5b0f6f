import crypto from 'node:crypto';
import type http from 'node:http';
import { ClientError } from '../errors';
import { describeAnswer, exchange, openRequest, type FerryApi } from '../http';
import { isObject, unusable, wholeNumber } from './common';
import type { FoundServer } from './detect';

/** A file of a download link, with what decrypting it takes (FileSender's names, as fileidsextended has them). */
export interface LinkFile {
  id: number;
  name: string;
  size: number;
  encrypted: boolean;
  key_salt: string | null;
  password_version: number | null;
  password_encoding: string | null;
  password_hash_iterations: number | null;
  fileiv: string | null;
  fileaead: string | null;
  transferid: number | null;
}

/**
 * The files of a FileSender download link. Signed in to that server, the client asks its REST interface (GET
 * /transfer/fileidsextended?token=…, which FileSender answers only to someone signed in); otherwise it reads
 * what the download page gives every recipient: one `<tr class="file" data-…>` row per file, with the same
 * fields (FileSender's templates/download_page.php).
 */
export async function fileSenderLinkFiles(
  found: FoundServer,
  token: string,
  probe: FerryApi,
  signed: FerryApi | null,
): Promise<LinkFile[]> {
  if (signed) {
    const what = 'reading the download link';
    const list = await signed.call<unknown>('GET', '/transfer/fileidsextended', { args: { token }, what });
    if (!Array.isArray(list)) throw unusable(what, 'GET /transfer/fileidsextended', list, 'is not a list of files');
    return list.map((f) => linkFile(isObject(f) ? f : {}, what, 'GET /transfer/fileidsextended'));
  }
  const page = new URL(`${found.siteUrl}/`);
  page.searchParams.set('s', 'download');
  page.searchParams.set('token', token);
  const res = await exchange(page, 'GET', { accept: 'text/html' }, undefined, probe.agent);
  const what = 'reading the download page';
  const request = `GET ${page.pathname}?s=download&token=…`;
  if (res.status !== 200) throw new ClientError(`${what}: ${request} answered ${describeAnswer(res)}`, 2);
  const rows = fileRows(res.body.toString('utf8'));
  if (rows.length === 0) {
    throw new ClientError(
      `${what}: ${request} lists no files (an expired or wrong link, or one that needs signing in: ferry login to that server first)`,
      1,
    );
  }
  return rows.map((r) => linkFile(r, what, request));
}

/** The data-* attributes of each `<tr class="file" …>` of the download page, entities decoded. */
export function fileRows(html: string): Record<string, string>[] {
  const rows: Record<string, string>[] = [];
  for (const m of html.matchAll(/<tr\s+class="file"([^>]*)>/g)) {
    const row: Record<string, string> = {};
    for (const a of m[1].matchAll(/data-([a-z0-9-]+)="([^"]*)"/g)) row[a[1].replace(/-/g, '_')] = decodeEntities(a[2]);
    rows.push(row);
  }
  return rows;
}

function decodeEntities(s: string): string {
  return s.replace(
    /&(amp|lt|gt|quot|#0?39|#x27);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"' })[e as 'amp'] ?? "'",
  );
}

function linkFile(r: Record<string, unknown>, what: string, request: string): LinkFile {
  const id = wholeNumber(r.id);
  const size = wholeNumber(r.size);
  if (id === null || size === null || typeof r.name !== 'string')
    throw unusable(what, request, r, 'has a file without id, name and size');
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  // fileidsextended says true/false; the page writes PHP's true as "1" and false as "".
  const encrypted = r.encrypted === true || r.encrypted === '1' || r.encrypted === 1 || r.encrypted === 'true';
  return {
    id,
    name: r.name,
    size,
    encrypted,
    key_salt: str(r.key_salt),
    password_version: wholeNumber(r.password_version),
    password_encoding: str(r.password_encoding),
    password_hash_iterations: wholeNumber(r.password_hash_iterations),
    fileiv: str(r.fileiv),
    fileaead: str(r.fileaead),
    transferid: wholeNumber(r.transferid),
  };
}

/**
 * FileSender's download.php?token=…&files_ids=…, as its source has it:
 * - without a transaction_id it answers 302 to itself with one: the client makes its own (a UUID) and asks once;
 * - a refusal is a 302 to the site's error page (`?s=exception`), or a 500 page: both are reported, not retried;
 * - `Range: bytes=a-` makes it announce one byte more than it sends, so a resumed plain download asks for
 *   `bytes=a-(size-1)`; with fewer than two bytes left, it sends nothing for the range: the file is asked whole.
 * - an encrypted file's range is in plaintext-chunk coordinates (chunk i at i × chunk size, its whole stored
 *   length), as ferry has it.
 */
export function fileSenderSource(siteUrl: string, token: string, agent: http.Agent) {
  return {
    // download.php answers its refusals (an unknown file id, a purged file) with a 500 page.
    final: (status: number) => status === 500,
    open(
      fileId: number,
      range: { from: number; to: number | null } | null,
      size: number,
    ): Promise<http.IncomingMessage> {
      const u = new URL(`${siteUrl}/download.php`);
      u.searchParams.set('token', token);
      u.searchParams.set('files_ids', String(fileId));
      u.searchParams.set('transaction_id', crypto.randomUUID());
      let r = range;
      if (r && r.to === null) r = size - r.from >= 2 ? { from: r.from, to: size - 1 } : null;
      const headers: Record<string, string> = r ? { range: `bytes=${r.from}-${r.to}` } : {};
      return new Promise((resolve, reject) => {
        const req = openRequest(u, 'GET', headers, agent, (res) => {
          if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400) {
            res.resume();
            const where = String(res.headers.location ?? '');
            reject(
              new ClientError(
                `downloading file ${fileId}: GET /download.php answered ${res.statusCode} to ${JSON.stringify(where)}${/s=exception/.test(where) ? ': the server refused the download (an expired link, or a download it does not allow)' : ''}`,
                2,
              ),
            );
            return;
          }
          resolve(res);
        });
        req.on('error', reject);
        req.end();
      });
    },
  };
}
