import { visibleName } from '../../util/names';

/**
 * The HTTP pieces of a download that are pure functions: the Range header (RFC 9110 §14, one range; a
 * multi-range request is answered with the whole representation, which the RFC allows) and
 * Content-Disposition with the original Unicode name (RFC 6266 / RFC 5987).
 */
export type RangeResult =
  | { kind: 'full' }
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable' };

export function parseRange(header: string | undefined, size: number): RangeResult {
  if (!header) return { kind: 'full' };
  const m = /^\s*bytes\s*=\s*(.+)$/i.exec(header);
  if (!m) return { kind: 'full' }; // an unknown unit is ignored
  const specs = m[1].split(',').map((s) => s.trim());
  if (specs.length !== 1) return { kind: 'full' };
  const r = /^(\d*)\s*-\s*(\d*)$/.exec(specs[0]);
  if (!r || (r[1] === '' && r[2] === '')) return { kind: 'full' };
  if (r[1] === '') {
    const suffix = Number(r[2]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(r[1]);
  const end = r[2] === '' ? size - 1 : Math.min(Number(r[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size || (r[2] !== '' && Number(r[2]) < start))
    return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end };
}

/**
 * The Range of an end-to-end encrypted file, as FileSender's clients send it (docs/encryption.md): the first
 * byte is a plaintext offset (chunk i asks for `bytes=i·S-…`), mapped to where that chunk is stored,
 * i·(S + 32); the length asked for is kept. A suffix range (`bytes=-N`) counts from the end of the stored
 * ciphertext. The answer's Content-Range is in stored bytes.
 */
export function parseEncryptedRange(
  header: string | undefined,
  storedSize: number,
  toStored: (plainOffset: number) => number,
): RangeResult {
  const r = parseRange(header, storedSize);
  if (r.kind !== 'partial' || !/=\s*\d/.test(header ?? '')) return r;
  const start = toStored(r.start);
  if (start >= storedSize) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(start + (r.end - r.start), storedSize - 1) };
}

/** `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` — never a raw user string. */
export function contentDisposition(name: string): string {
  const clean = visibleName(name).replace(/^.*[\\/]/, '') || 'download';
  const fallback = clean.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(clean).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** A MIME type given by the uploader, accepted only when it is a plain type/subtype token pair. */
export function safeContentType(mime: string | null): string {
  if (mime && /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/i.test(mime)) {
    // Never let an upload be rendered as a page or script by the browser on our origin.
    if (
      /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|text\/javascript|application\/javascript)$/i.test(
        mime,
      )
    ) {
      return 'application/octet-stream';
    }
    return mime.toLowerCase();
  }
  return 'application/octet-stream';
}
