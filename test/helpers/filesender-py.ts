import crypto from 'node:crypto';
import { readResponse, TestResponse } from './server';

/**
 * The HTTP side of FileSender's command-line client, filesender.py 3.8 (scripts/client/filesender.py on the
 * master3 branch of github.com/filesender/filesender), written down from reading it: the same requests, built
 * the same way, so tests see what ferry sees when the real client talks to it. Nothing of its code is here.
 *
 * - Every REST call is signed: HMAC-SHA1 (hex) with the user's secret over
 *   `<method in lower case>&<base_url without its scheme><path>?<"k=v" of the arguments, sorted as strings>`
 *   plus `&<body>` when there is one: the JSON as Python's json.dumps(separators=(',', ':')) writes it
 *   (non-ASCII as \uXXXX), or a chunk's bytes. The arguments are remote_user, timestamp and the call's own.
 * - The URL is base_url + path + "?" + the same arguments, each key and value through urllib.parse.quote
 *   (everything but letters, digits, "_.-~/" percent-encoded), then signature=…
 * - Headers: Accept: application/json and Content-Type (application/json, or application/octet-stream for
 *   chunks), besides what python-requests adds.
 * - An answer other than 200 (or 201 to a POST) is retried after 5 s with a new timestamp, up to the
 *   configured retries; a POST's answer must carry a Location header.
 * - Of the answers it reads only: the Transfer's id, files and roundtriptoken (and salt with -e); each File's
 *   id, puid, name and size (it finds its local file again by "name:size"); /info's upload_chunk_size; and
 *   fileidsextended's id, name, size and encrypted. Never `options`, so the spec's array of names is safe
 *   where a FileSender 3.8 server answers an object.
 */
export interface PyClientOptions {
  /** base_url of filesender.py.ini: "{site}/rest.php". */
  baseUrl: string;
  username: string;
  apikey: string;
  /** The client's clock, UNIX seconds (its round(time.time())). */
  clock?: () => number;
  /** What the client's time.sleep(5) between retries does here (tests move a clock instead of waiting). */
  sleep5?: () => Promise<void>;
  retries?: number;
}

export interface PyCall {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  data?: Record<string, string | null | undefined>;
  content?: unknown;
  raw?: Buffer;
}

export type PyResponse = TestResponse;

/** One attempt as sent: for tests that replay or inspect it. */
export interface PyRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer | string | undefined;
  signed: Buffer;
}

export const PY_HEADERS = {
  'User-Agent': 'python-requests/2.32.3',
  'Accept-Encoding': 'gzip, deflate',
  Connection: 'keep-alive',
};

/** Python's json.dumps(obj, separators=(',', ':')) with its default ensure_ascii=True. */
export function pyJsonDumps(v: unknown): string {
  return JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Python's urllib.parse.quote(s) (safe="/"), on the UTF-8 bytes of s. */
export function pyQuote(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%2F/g, '/');
}

/** The client's flatten(): "k=v" for each argument that is not None, sorted as strings. */
export function pyFlatten(data: Record<string, string | null | undefined>): string[] {
  return Object.entries(data)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .sort();
}

export class FileSenderPy {
  readonly sent: PyRequest[] = [];
  private readonly clock: () => number;

  constructor(readonly o: PyClientOptions) {
    this.clock = o.clock ?? (() => Math.round(Date.now() / 1000));
  }

  /** The request filesender.py's call() sends for one attempt, signed at the client's current time. */
  build(c: PyCall): PyRequest {
    const data: Record<string, string | null | undefined> = {
      ...(c.data ?? {}),
      remote_user: this.o.username,
      timestamp: String(this.clock()),
    };
    const hostAndPath = this.o.baseUrl.replace('https://', '').replace('http://', '');
    let signed = Buffer.from(`${c.method}&${hostAndPath}${c.path}?${pyFlatten(data).join('&')}`, 'ascii');
    const contentType = c.raw ? 'application/octet-stream' : 'application/json';
    let body: Buffer | string | undefined;
    if (c.content !== undefined && !c.raw) {
      body = pyJsonDumps(c.content);
      signed = Buffer.concat([signed, Buffer.from(`&${body}`, 'ascii')]);
    } else if (c.raw) {
      body = c.raw;
      signed = Buffer.concat([signed, Buffer.from('&'), c.raw]);
    }
    data.signature = crypto.createHmac('sha1', Buffer.from(this.o.apikey, 'latin1')).update(signed).digest('hex');
    const query = pyFlatten(data).map((item) => {
      const i = item.indexOf('=');
      return `${pyQuote(item.slice(0, i))}=${pyQuote(item.slice(i + 1))}`;
    });
    const url = `${this.o.baseUrl}${c.path}?${query.join('&')}`;
    const headers = { ...PY_HEADERS, Accept: 'application/json', 'Content-Type': contentType };
    return { url, method: c.method.toUpperCase(), headers, body, signed };
  }

  /** Sends one built request as python-requests would (GET and DELETE without a body). */
  async send(r: PyRequest): Promise<PyResponse> {
    this.sent.push(r);
    const withBody = r.method === 'POST' || r.method === 'PUT';
    return readResponse(
      await fetch(r.url, {
        method: r.method,
        headers: r.headers,
        body: withBody ? (r.body as BodyInit | undefined) : undefined,
        redirect: 'manual',
        signal: AbortSignal.timeout(60_000),
      }),
    );
  }

  /** call(): signs, sends, retries a refused call 5 s later with a new timestamp, and checks what it checks. */
  async call(c: PyCall, tryCount = 0): Promise<any> {
    const r = await this.send(this.build(c));
    if (r.status !== 200 && !(c.method === 'post' && r.status === 201)) {
      if (tryCount > (this.o.retries ?? 20)) throw new Error(`Http error ${r.status} ${r.text}`);
      if (r.status === 500 && r.text.includes('auth_remote_signature_check_failed'))
        throw new Error('Authentication failed, check API token');
      await (this.o.sleep5 ?? (() => new Promise((ok) => setTimeout(ok, 5000))))();
      return this.call(c, tryCount + 1);
    }
    if (r.text === '') throw new Error(`Http error ${r.status} Empty response`);
    if (c.method !== 'post') return r.json;
    const location = r.headers.get('location');
    if (location === null) throw new Error("KeyError: 'Location'");
    return { location, created: r.json };
  }

  // The client's API helpers, with their arguments as it passes them.

  postTransfer(
    files: { name: string; size: number; iv?: string; aead?: string }[],
    recipients: string,
    from: string,
    expires: number,
    subject: string | null = null,
    message: string | null = null,
    encryption?: PyEncryption,
  ) {
    const to = recipients.split(',').map((x) => x.trim());
    const content: Record<string, unknown> = {
      from,
      files,
      recipients: to,
      subject,
      message,
      expires,
      aup_checked: 1,
      options: { get_a_link: 0 },
    };
    if (encryption) {
      // -e: its encryption_details as it keeps them, versions as strings, the iteration count as a number.
      content.encryption = true;
      content.encryption_key_version = '3';
      content.encryption_password_encoding = 'none';
      content.encryption_password_version = '1';
      content.encryption_password_hash_iterations = encryption.iterations;
    }
    return this.call({ method: 'post', path: '/transfer', content });
  }

  putChunk(t: any, f: any, chunk: Buffer, offset: number) {
    return this.call({
      method: 'put',
      path: `/file/${f.id}/chunk/${offset}`,
      data: { key: f.puid, roundtriptoken: t.roundtriptoken },
      raw: chunk,
    });
  }

  fileComplete(t: any, f: any) {
    return this.call({
      method: 'put',
      path: `/file/${f.id}`,
      data: { key: f.puid, roundtriptoken: t.roundtriptoken },
      content: { complete: true },
    });
  }

  transferComplete(t: any) {
    return this.call({
      method: 'put',
      path: `/transfer/${t.id}`,
      data: { key: t.files[0].puid },
      content: { complete: true },
    });
  }

  deleteTransfer(t: any) {
    return this.call({ method: 'delete', path: `/transfer/${t.id}`, data: { key: t.files[0].puid } });
  }

  filesInTransfer(token: string) {
    return this.call({ method: 'get', path: '/transfer/fileidsextended', data: { token } });
  }

  postGuest(recipient: string, expires: number, subject: string | null = null, message: string | null = null) {
    const content = {
      from: this.o.username,
      recipient,
      subject,
      message,
      expires,
      aup_checked: 1,
      options: { get_a_link: 0 },
    };
    return this.call({ method: 'post', path: '/guest', content });
  }

  /** download_file() of an unencrypted file: GET {base_url with rest.php → download.php}?token=&files_ids=, unsigned. */
  async downloadFile(
    token: string,
    fileId: number,
    range?: string,
  ): Promise<{ status: number; headers: Headers; body: Buffer }> {
    const url = `${this.o.baseUrl.replace('rest.php', 'download.php')}?token=${pyQuote(token)}&files_ids=${fileId}`;
    const res = await fetch(url, {
      headers: { ...PY_HEADERS, Accept: '*/*', ...(range ? { Range: range } : {}) },
      signal: AbortSignal.timeout(60_000),
    });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  }

  /**
   * download_file() of an encrypted file: one unsigned Range GET per plaintext chunk, `bytes=i·S-` the end of
   * the encrypted chunk (clamped to size + 31), each decrypted by decrypt_chunk(); a failed chunk throws (the
   * client then starts the file again, up to 10 times, and stops with "was the password incorrect?").
   */
  async downloadEncryptedFile(token: string, f: any, key: Buffer, chunkSize: number): Promise<Buffer> {
    const url = `${this.o.baseUrl.replace('rest.php', 'download.php')}?token=${pyQuote(token)}&files_ids=${f.id}`;
    const out: Buffer[] = [];
    for (let i = 0, chunkNo = 0; i < f.size; i += chunkSize, chunkNo++) {
      const end = Math.min(chunkNo * chunkSize + chunkSize + 32 - 1, f.size + 32 - 1);
      const res = await fetch(url, {
        headers: { ...PY_HEADERS, Accept: '*/*', Range: `bytes=${i}-${end}` },
        signal: AbortSignal.timeout(60_000),
      });
      if (res.status >= 400) throw new Error(`HTTPError ${res.status}`);
      out.push(pyDecryptChunk(Buffer.from(await res.arrayBuffer()), chunkNo, f, key));
    }
    return Buffer.concat(out);
  }

  /** deconstruct_download_link() and its check that the link belongs to the configured server. */
  static tokenOfLink(link: string, baseUrl: string): string {
    const parts = link.split('?');
    if (parts.length !== 2) throw new Error('AssertionError: link without a single "?"');
    const params = Object.fromEntries(parts[1].split('&').map((c) => [c.split('=')[0], c.split('=').at(-1)!]));
    if (!baseUrl.includes(parts[0]))
      throw new Error(`Error: Download requested for non configured filesender instance ${parts[0]}`);
    if (!('token' in params)) throw new Error('Error: Unable to find download token in url');
    return params.token;
  }
}

/** What -e <password> makes the client add to POST /transfer. */
export interface PyEncryption {
  iterations: number;
}

/** generate_key(): PBKDF2-HMAC-SHA-256 of the password's ASCII bytes with the salt's ASCII bytes, 32 octets. */
export function pyGenerateKey(password: string, salt: string, iterations: number): Buffer {
  if (!/^[\x00-\x7f]*$/.test(password)) throw new Error("UnicodeEncodeError: 'ascii' codec can't encode the password");
  return crypto.pbkdf2Sync(Buffer.from(password, 'ascii'), Buffer.from(salt, 'ascii'), iterations, 32, 'sha256');
}

/**
 * process()'s per-file IV and AEAD for -e: 12 random octets (crypto_iv_len − 4) in base64, and the AEAD string
 * it concatenates by hand, sent base64-encoded.
 */
export function pyFileIvAead(
  size: number,
  chunkSize: number,
): { ivBytes: Buffer; iv: string; aeadString: string; aead: string } {
  const ivBytes = crypto.randomBytes(12);
  const iv = ivBytes.toString('base64');
  const aeadString = `{"aeadversion":1,"chunkcount":${Math.ceil(size / chunkSize)},"chunksize":${chunkSize},"iv":"${iv}","aeadterminator":1}`;
  return { ivBytes, iv, aeadString, aead: Buffer.from(aeadString, 'ascii').toString('base64') };
}

/** encrypt_chunk_aesgcm(): IV = file IV ‖ chunk id (32-bit little-endian); the chunk is that IV ‖ ciphertext ‖ tag. */
export function pyEncryptChunk(
  data: Buffer,
  chunkId: number,
  ivBytes: Buffer,
  aeadString: string,
  key: Buffer,
): Buffer {
  const fullIv = Buffer.concat([ivBytes, Buffer.alloc(4)]);
  fullIv.writeUInt32LE(chunkId, 12);
  const c = crypto.createCipheriv('aes-256-gcm', key, fullIv);
  c.setAAD(Buffer.from(aeadString, 'ascii'));
  return Buffer.concat([fullIv, c.update(data), c.final(), c.getAuthTag()]);
}

/** decrypt_chunk(): key version 3 only; the IV rebuilt from fileiv and the chunk number, the AEAD from fileaead. */
export function pyDecryptChunk(chunk: Buffer, chunkNo: number, f: any, key: Buffer): Buffer {
  if (f['key-version'] !== 3) throw new Error('NotImplementedError: Only AES-GCM is currently supported.');
  const iv = Buffer.concat([Buffer.from(f.fileiv, 'base64'), Buffer.alloc(4)]);
  iv.writeUInt32LE(chunkNo, iv.length - 4);
  const d = crypto.createDecipheriv('aes-256-gcm', key, iv);
  d.setAAD(Buffer.from(f.fileaead, 'base64'));
  d.setAuthTag(chunk.subarray(chunk.length - 16));
  return Buffer.concat([d.update(chunk.subarray(iv.length, chunk.length - 16)), d.final()]);
}

/**
 * The client's reading of `{site}/filesender-config.js.php`: the same regular expressions on the text. A
 * value it cannot find makes the real client die (None.group → AttributeError), so `null` here is a failure.
 */
export function pyScrapeConfig(text: string) {
  const num = (re: RegExp) => {
    const m = re.exec(text);
    return m ? Number(m[1]) : null;
  };
  const word = (re: RegExp) => re.exec(text)?.[1] ?? null;
  return {
    worker_count: num(/terasender_worker_count\D*(\d+)/),
    worker_timeout_s: ((ms) => (ms === null ? null : Math.floor(ms / 1000)))(
      num(/terasender_worker_start_must_complete_within_ms\D*(\d+)/),
    ),
    worker_retries: num(/terasender_worker_max_chunk_retries\D*(\d+)/),
    terasender_enabled: word(/terasender_enabled\W*(\w+)/),
    max_transfer_files: num(/max_transfer_files\D*(\d+)/),
    max_transfer_days_valid: num(/max_transfer_days_valid\D*(\d+)/),
    // Read only for -e (encrypted upload).
    password_mixed_case_required: word(/encryption_password_must_have_upper_and_lower_case: (\w+)/),
    password_numbers_required: word(/encryption_password_must_have_numbers: (\w+)/),
    password_special_required: word(/encryption_password_must_have_special_characters: (\w+)/),
    iv_len: num(/crypto_iv_len\D+(\d+)/),
    password_hash_iterations: num(/encryption_password_hash_iterations_new_files\D+(\d+)/),
    crypt_type: word(/crypto_crypt_name: '(.+)'/),
    hash_name: word(/crypto_hash_name: '(.+)'/),
  };
}

/**
 * How process() names the files of its arguments: folders are walked, and with more than one file each name is
 * its path below the files' common folder, "/" separated; a single file is its base name.
 */
export function pyTransferNames(absolutePaths: string[]): string[] {
  if (absolutePaths.length <= 1) return absolutePaths.map((p) => p.split('/').at(-1)!);
  const split = absolutePaths.map((p) => p.split('/'));
  let common = 0;
  while (split.every((s) => common < s.length - 1 && s[common] === split[0][common])) common++;
  const root = split[0].slice(0, common).join('/');
  return absolutePaths.map((p) => p.slice(root.length + 1));
}
