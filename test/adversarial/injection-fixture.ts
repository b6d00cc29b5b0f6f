import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';

/**
 * Hostile strings for the injection group of the adversarial suite, and the checks that say where
 * each one may end up: stored as given, but never as a path, a header line, a ZIP/tar path or live markup.
 */

/** File names ferry accepts and stores as given: every one must come back byte for byte from GET /transfer. */
export const HOSTILE_NAMES: [label: string, name: string][] = [
  ['folder path', 'etc/passwd'],
  ['deep folder path', 'a/b/c/d/e.txt'],
  ['dots in a segment', 'a/.../b..c/.hidden'],
  ['CR/LF header', 'a\r\nX-Injected: 1'],
  ['LF only', 'line\nX-Injected: 2.txt'],
  ['quote and parameter', '"; filename=evil.exe'],
  ['backslash quote', 'q\\"uote.txt'],
  ['script tag', '<script>alert(1)</script>.html'],
  ['attribute breakout', '" onmouseover="alert(1)'],
  ['RTL override', '\u202Egnp.exe'],
  ['RTL override inside', 'photo\u202Egnp.exe'],
  ['bidi isolate', 'a\u2066b\u2069.txt'],
  ['tab and bell', 'tab\tbell\u0007.txt'],
  ['C1 control NEL', 'c1\u0085next.txt'],
  ['line separator', 'ls\u2028ps\u2029.txt'],
  ['percent NUL', '%00.txt'],
  ['percent dot-dot', '%2e%2e%2fescape.txt'],
  ['SQL quote', "' OR 1=1 --"],
  ['SQL drop', "x'); DROP TABLE files;--.txt"],
  ['semicolon comma equals', 'a;b,c=d.txt'],
  ['template', '${7*7}{{7*7}}`x`.txt'],
  ['entities', '&amp;&lt;b&gt;.txt'],
  ['300 ASCII bytes', `${'n'.repeat(296)}.txt`],
  ['600 UTF-8 bytes', `${'€'.repeat(200)}.pdf`],
  ['1024 characters with a path', `${'d/'.repeat(200)}${'x'.repeat(620)}.bin`],
  ['astral', 'emoji 😀 文件.txt'],
  // Cut to ustar's 99 bytes from the end, these two once left the fallback name "/bbb…" and "../bbb…".
  ['ustar cut at a slash', `${'a'.repeat(150)}/${'b'.repeat(97)}é`],
  ['ustar cut at dot-dot', `${'a'.repeat(150)}/.../${'b'.repeat(95)}é`],
];

/** A file name refused as a bad parameter, named in the details as the first file's name. */
const badName = (label: string, name: string): [string, string, string, string[]] => [
  label,
  name,
  'rest_bad_parameter',
  ['files[0].name'],
];

/** File names refused with a 400: the message id and details each must answer with. */
export const REFUSED_NAMES: [label: string, name: string, message: string, details: string[]][] = [
  badName('NUL', 'a\u0000.txt'),
  badName('10 kB', 'n'.repeat(10_000)),
  badName('blank', ' \t '),
  // A name may carry a folder path, but one that stays inside whatever folder it is unpacked into.
  badName('dot-dot path', '../../etc/passwd'),
  badName('absolute path', '/etc/passwd'),
  badName('windows drive', 'C:\\x'),
  badName('windows dot-dot', '..\\..\\windows\\win.ini'),
  badName('UNC path', '\\\\server\\share\\x.txt'),
  badName('nested dot-dot', 'a/../../../b.txt'),
  badName('only dot-dot', '..'),
  badName('only dot', '.'),
  badName('only slash', '/'),
  badName('empty segment', 'a//b.txt'),
  badName('trailing slash', 'folder/'),
  // Not a character at all: SQLite would store U+FFFD, so the name could never round-trip.
  ['lone surrogate', 'a\uD800b.txt', 'bad_request_body', ['encoding']],
];

/** Subjects and messages: each goes through a whole Transfer and its mail. */
export const HOSTILE_TEXTS: [label: string, text: string][] = [
  ['CR/LF header', 'Hi\r\nX-Injected: 1\r\nBcc: evil@example.org'],
  ['LF body break', 'Hi\n\n<html>body</html>'],
  ['script', '<script>alert(1)</script>'],
  ['encoded word', '=?UTF-8?B?PHNjcmlwdD4=?= =?utf-8?q?X-Injected=3A_1?='],
  ['RTL', 'invoice \u202Efdp.exe'],
  ['SQL', "'; DROP TABLE transfers; --"],
  ['quotes', '"double" \'single\' `back`'],
  ['C1 and DEL', 'a\u0085b\u007fc'],
];

/** Addresses the e-mail rules accept although each is odd; they must reach mail headers as one plain address. */
export const ODD_ADDRESSES = [
  "o'brien&{x}@example.org",
  '/etc/passwd@example.org',
  "x'or'1'='1@example.org",
  '%2e%2e%2f=?q?@example.org',
];

/** Characters no header, path or plain-text rendering may carry from a user's string. */
// eslint-disable-next-line no-control-regex
export const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** An archive entry name that extracts inside the target directory on Unix and Windows. */
export function assertSafeEntryName(n: string, label: string): void {
  assert.ok(n.length > 0, `${label}: empty name`);
  assert.not.ok(
    n.startsWith('/') || n.includes('\\') || /^[A-Za-z]:/.test(n),
    `${label}: absolute or backslash: ${JSON.stringify(n)}`,
  );
  assert.not.ok(
    n.split('/').some((seg) => seg === '..' || seg === '.' || seg === ''),
    `${label}: dot segment: ${JSON.stringify(n)}`,
  );
  assert.not.ok(UNSAFE.test(n), `${label}: control or bidi character: ${JSON.stringify(n)}`);
  for (const seg of n.split('/'))
    assert.ok(Buffer.byteLength(seg) <= 255, `${label}: segment of ${Buffer.byteLength(seg)} bytes`);
}

/** Every regular file under dir (relative paths), bounded so a runaway tree cannot hang the test. */
export function walk(dir: string, limit = 10_000): string[] {
  const out: string[] = [];
  const stack = [''];
  while (stack.length && out.length < limit) {
    const rel = stack.pop()!;
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) stack.push(p);
      else out.push(p);
    }
  }
  return out.sort();
}

export interface TarEntry {
  /** The ustar name field (what a reader without pax support uses). */
  ustar: string;
  /** The pax path record, when there is one. */
  pax: string | null;
  data: Buffer;
}

/** Reads a tar made of ustar headers and pax 'x' headers (ferry's tar writer), bounded by the buffer. */
export function tarEntries(tar: Buffer): TarEntry[] {
  const out: TarEntry[] = [];
  let pax: string | null = null;
  for (let p = 0; p + 512 <= tar.length; ) {
    const h = tar.subarray(p, p + 512);
    if (h.every((b) => b === 0)) break;
    const field = (o: number, n: number) =>
      h
        .subarray(o, o + n)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12), 8);
    const type = field(156, 1);
    const data = tar.subarray(p + 512, p + 512 + size);
    p += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString('utf8'));
      pax = m ? m[1] : null;
      continue;
    }
    out.push({ ustar: field(0, 100), pax, data: Buffer.from(data) });
    pax = null;
  }
  return out;
}

/** Header names a ferry mail may carry; an injected line would add one outside this list. */
const MAIL_HEADERS = new Set([
  'content-type',
  'from',
  'to',
  'reply-to',
  'subject',
  'message-id',
  'date',
  'mime-version',
  'content-language',
  'auto-submitted',
  'content-transfer-encoding',
  'received',
  'x-ferry-message',
  'return-path',
  'delivered-to',
]);

/** The head of a stored .eml: every line is a known header or a folded continuation, all plain ASCII. */
export function assertCleanMailHead(raw: string, label: string): Record<string, string> {
  const head = raw.slice(0, raw.search(/\r?\n\r?\n/));
  const fields: Record<string, string> = {};
  let last = '';
  for (const line of head.split(/\r?\n/)) {
    assert.ok(
      /^[\x20-\x7e\t]*$/.test(line),
      `${label}: non-ASCII or control byte in header line ${JSON.stringify(line)}`,
    );
    if (/^[ \t]/.test(line)) {
      fields[last] += line;
      continue;
    }
    const m = /^([A-Za-z0-9-]+):/.exec(line);
    assert.ok(m, `${label}: not a header line: ${JSON.stringify(line)}`);
    last = m![1].toLowerCase();
    assert.ok(MAIL_HEADERS.has(last), `${label}: unexpected header ${JSON.stringify(line)}`);
    assert.not.ok(last in fields, `${label}: header ${last} twice`);
    fields[last] = line.slice(m![0].length);
  }
  return fields;
}

/** RFC 5987 value of filename* decoded, and the quoted fallback, from a Content-Disposition ferry wrote. */
export function parseDisposition(cd: string, label: string): { fallback: string; name: string } {
  const m = /^attachment; filename="([\x20-\x7e]*)"; filename\*=UTF-8''([A-Za-z0-9%._~!$&+\-^`|]*)$/.exec(cd);
  assert.ok(m, `${label}: Content-Disposition ${JSON.stringify(cd)}`);
  assert.not.ok(/["\\]/.test(m![1]), `${label}: quote or backslash in the fallback`);
  return { fallback: m![1], name: decodeURIComponent(m![2]) };
}
