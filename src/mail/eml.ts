/**
 * Just enough RFC 5322 / MIME reading for the sink's admin page: decoded headers (RFC 2047 encoded words)
 * and the text/plain and text/html parts (quoted-printable or base64, UTF-8). ferry only reads messages it wrote itself.
 */
export interface EmlSummary {
  headers: Record<string, string>;
  text: string;
  /** The text/html part as sent (markup, to be shown escaped), or null. */
  html: string | null;
}

function splitHead(raw: string): [string, string] {
  const m = /\r?\n\r?\n/.exec(raw);
  return m ? [raw.slice(0, m.index), raw.slice(m.index + m[0].length)] : [raw, ''];
}

function parseHeaders(head: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    if (!(name in out)) out[name] = decodeWords(line.slice(i + 1).trim());
  }
  return out;
}

/** RFC 2047: =?charset?B|Q?data?= (adjacent encoded words are joined without the space between them). */
export function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[bBqQ]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_m, charset: string, enc: string, data: string) => {
      const bytes =
        enc.toUpperCase() === 'B'
          ? Buffer.from(data, 'base64')
          : Buffer.from(
              data
                .replace(/_/g, ' ')
                .replace(/=([0-9A-Fa-f]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
              'latin1',
            );
      return /utf-?8/i.test(charset) ? bytes.toString('utf8') : bytes.toString('latin1');
    });
}

function decodeBody(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '').toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') {
    const soft = body.replace(/=\r?\n/g, '');
    return Buffer.from(
      soft.replace(/=([0-9A-Fa-f]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    ).toString('utf8');
  }
  return body;
}

function findPart(want: RegExp, headers: Record<string, string>, body: string, depth = 0): string | null {
  const type = headers['content-type'] ?? 'text/plain';
  if (want.test(type)) return decodeBody(body, headers['content-transfer-encoding']);
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || !boundary || depth > 5) return null;
  for (const part of body.split(`--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break;
    const [h, b] = splitHead(part.replace(/^\r?\n/, ''));
    const found = findPart(want, parseHeaders(h), b.replace(/\r?\n$/, ''), depth + 1);
    if (found !== null) return found;
  }
  return null;
}

export function readEml(raw: string): EmlSummary {
  const [head, body] = splitHead(raw);
  const headers = parseHeaders(head);
  return {
    headers,
    text: findPart(/^text\/plain/i, headers, body) ?? '',
    html: findPart(/^text\/html/i, headers, body),
  };
}
