import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A FileSender 3.8 server as its REST endpoints, its settings script, its download page and download.php answer
 * a remote user and a recipient, written from FileSender's source (branch master3): classes/rest/RestServer,
 * classes/auth/AuthRemote, classes/rest/endpoints/{Info,User,Transfer,File,Guest}, www/filesender-config.js.php,
 * templates/download_page.php, www/download.php, classes/storage/StorageFilesystem. Each answer keeps what a
 * client meets there: 500 for most refusals, `details` as an object, sizes echoed as strings by POST /transfer,
 * no status in a transfer, no ranges in a file, a redirect before every download, and a Range whose open end
 * announces one byte more than it sends. Stored bytes are kept in memory.
 */
export interface EmulatedFile {
  id: number;
  name: string;
  size: number;
  mime: string;
  iv: string | null;
  aead: string | null;
  puid: string;
  data: Buffer;
  written: number;
  complete: boolean;
}
export interface EmulatedTransfer {
  id: number;
  userEmail: string;
  subject: string | null;
  message: string | null;
  created: number;
  expires: number;
  status: 'started' | 'uploading' | 'available' | 'closed';
  options: Record<string, unknown>;
  salt: string;
  roundtriptoken: string;
  encrypted: boolean;
  keyVersion: number | null;
  passwordVersion: number | null;
  passwordEncoding: string | null;
  iterations: number | null;
  files: EmulatedFile[];
  recipients: { id: number; email: string; token: string }[];
}

export interface Emulator {
  url: string;
  /** `${url}/rest.php` */
  rest: string;
  users: Map<string, string>;
  transfers: Map<number, EmulatedTransfer>;
  guests: Record<string, unknown>[];
  /** Every request as `METHOD /path` (no query), in order. */
  log: string[];
  /** Lets `after` more chunks in, then fails the next one as FileSender's storage does when a write fails. */
  failChunkAfter: (after: number) => void;
  close: () => Promise<void>;
}

export const EMULATED_CHUNK = 64 * 1024;
const OVERHEAD = 32;

class Refusal extends Error {
  constructor(
    readonly id: string,
    readonly status: number,
    readonly details: Record<string, unknown> | null = null,
  ) {
    super(id);
  }
}

export interface EmulatorOptions {
  chunk?: number;
  maxFiles?: number;
  iterations?: number;
  users?: Record<string, string>;
  /** encryption_mandatory: transfers must be encrypted. */
  mandatory?: boolean;
  /** Each chunk's answer this much later (a slow link), so a test can stop the client halfway. */
  chunkDelayMs?: number;
  /** SERVER_NAME as a stock fastcgi setup passes it: the host without the port ('host'); else as the client sent it. */
  serverName?: 'host' | 'hostport';
}

export async function startFileSenderEmulator(o: EmulatorOptions = {}): Promise<Emulator> {
  const chunk = o.chunk ?? EMULATED_CHUNK;
  const crypted = chunk + OVERHEAD;
  const users = new Map(Object.entries(o.users ?? {}));
  const transfers = new Map<number, EmulatedTransfer>();
  const guests: Record<string, unknown>[] = [];
  const log: string[] = [];
  let nextId = 1;
  let failIn = -1;
  let site = '';

  const config = [
    "if (typeof window === 'undefined') {",
    '\twindow = {};',
    '}',
    "if (!('filesender' in window)) window.filesender = {};",
    '',
    'window.filesender.config = {',
    '    log: true,',
    "    site_name: 'FileSender emulated',",
    `    upload_chunk_size: ${chunk},`,
    `    upload_crypted_chunk_size: ${crypted},`,
    '    max_transfer_size: 107374182400,',
    `    max_transfer_files: ${o.maxFiles ?? 30},`,
    '    max_transfer_file_size: 0,',
    '    max_transfer_encrypted_file_size: 0,',
    "    ban_extension: 'exe,bat',",
    '    max_transfer_days_valid: 20,',
    '    default_transfer_days_valid: 10,',
    '    min_guest_days_valid: 1,',
    '    max_guest_days_valid: 20,',
    '    default_guest_days_valid: 20,',
    "    chunk_upload_security: 'key',",
    "    encryption_enabled: '1',",
    `    encryption_mandatory: '${o.mandatory ? '1' : ''}',`,
    "    encryption_min_password_length: '12',",
    "    encryption_key_version_new_files: '3',",
    `    encryption_password_hash_iterations_new_files: '${o.iterations ?? 1000}',`,
    '    encryption_encode_encrypted_chunks_in_base64_during_upload: false,',
    "    crypto_crypt_name: 'AES-GCM',",
    '    terasender_enabled: true,',
    '    autocomplete: {',
    '        enabled:  false,',
    '        min_characters: 3',
    '    },',
    '    encryption_password_must_have_upper_and_lower_case: true,',
    '    encryption_password_must_have_numbers: true,',
    '    encryption_password_must_have_special_characters: true,',
    '};',
  ].join('\n');

  const date = (t: number | string) => ({ raw: t, formatted: new Date(Number(t) * 1000).toDateString() });
  const fileCast = (f: EmulatedFile, t: EmulatedTransfer) => ({
    id: f.id,
    transfer_id: t.id,
    puid: f.puid,
    name: f.name,
    size: f.size,
    sha1: null,
  });
  const cast = (
    t: EmulatedTransfer,
    creating: { sizes: unknown[]; cids: unknown[]; expiresRaw: unknown } | null = null,
  ) => ({
    id: t.id,
    userid: 15,
    user_email: t.userEmail,
    subject: t.subject,
    message: t.message,
    created: date(t.created),
    // What POST /transfer was sent, PHP's echo of it: numbers as strings, a cid of "0" as false.
    expires: date(creating ? (creating.expiresRaw as number) : t.expires),
    expiry_date_extension: 0,
    options: t.options,
    salt: t.salt,
    roundtriptoken: creating ? t.roundtriptoken : '',
    files: t.files.map((f, i) =>
      creating ? { ...fileCast(f, t), size: creating.sizes[i], cid: creating.cids[i] || false } : fileCast(f, t),
    ),
    recipients: t.recipients.map((r) => ({
      id: r.id,
      transfer_id: t.id,
      token: r.token,
      email: r.email,
      created: date(t.created),
      last_activity: null,
      options: null,
      download_url: `${site}/?s=download&token=${r.token}`,
      errors: [],
    })),
  });
  const fileById = (id: number) => {
    for (const t of transfers.values()) for (const f of t.files) if (f.id === id) return { t, f };
    throw new Refusal('file_not_found', 500);
  };
  const byToken = (token: string) => {
    for (const t of transfers.values()) for (const r of t.recipients) if (r.token === token) return t;
    return null;
  };

  /** AuthRemote::isAuthenticated: the remote user, or null when the request is not signed. */
  const authenticate = (req: http.IncomingMessage, u: URL, body: Buffer): string | null => {
    const q = u.searchParams;
    if (!q.has('signature') || !q.has('timestamp') || !q.has('remote_user')) return null;
    const uid = q.get('remote_user')!;
    const late = Math.floor(Date.now() / 1000) - Number(q.get('timestamp')) - 15;
    if (late > 0) throw new Refusal('auth_remote_too_late', 500);
    const args = [...q.entries()]
      .filter(([k]) => k !== 'signature' && k !== '_')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const host = o.serverName === 'host' ? String(req.headers.host).replace(/:\d+$/, '') : req.headers.host;
    let signed = `${req.method!.toLowerCase()}&${host}${u.pathname}`;
    if (args.length) signed += `?${args.map(([k, v]) => `${k}=${v}`).join('&')}`;
    const secret = users.get(uid);
    if (!secret) throw new Refusal('auth_remote_user_rejected', 500);
    const h = crypto.createHmac('sha1', secret).update(signed);
    if (body.length) h.update('&').update(body);
    if (h.digest('hex') !== q.get('signature')) throw new Refusal('auth_remote_signature_check_failed', 500);
    return uid;
  };

  const rest = (
    req: http.IncomingMessage,
    u: URL,
    body: Buffer,
    user: string | null,
  ): { status?: number; data: unknown } => {
    const method = req.method!.toLowerCase();
    const parts = u.pathname.slice('/rest.php'.length).split('/').filter(Boolean);
    const [endpoint, id, mode, offsetRaw] = parts;
    const input = () => {
      try {
        return JSON.parse(body.toString('utf8')) as Record<string, any>;
      } catch {
        return {} as Record<string, any>;
      }
    };
    if (!endpoint) throw new Refusal('rest_endpoint_missing', 400);
    if (endpoint === 'info' && method === 'get')
      return {
        data: {
          url: `${site}/`,
          name: 'FileSender emulated',
          logon_url: `${site}/#logon-__target__`,
          upload_chunk_size: chunk,
          forward_capabilities: [{ method: 'REST' }],
        },
      };
    if (endpoint === 'transfer' && method === 'get' && id === 'fileids') {
      const t = byToken(u.searchParams.get('token') ?? '');
      return { data: t ? t.files.map((f) => f.id) : null };
    }
    if (!user) throw new Refusal('rest_authentication_required', 401);
    if (endpoint === 'user' && method === 'get') {
      if (!id) throw new Refusal('rest_ownership_required', 403, { method: 'get', endpoint: 'user' });
      if (id !== '@me') throw new Refusal('rest_ownership_required', 403, { method: 'get', endpoint: 'user' });
      return {
        data: {
          id: 15,
          saml_id: user,
          additional_attributes: null,
          aup_ticked: false,
          transfer_preferences: null,
          guest_preferences: null,
          created: date(0),
          last_activity: date(0),
          lang: 'en',
          frequent_recipients: null,
          eventcount: 0,
          eventip: 0,
        },
      };
    }
    if (endpoint === 'transfer' && method === 'post') {
      const d = input();
      if (!Array.isArray(d.files) || !d.files.length) throw new Refusal('transfer_no_files', 500);
      if (d.files.length > (o.maxFiles ?? 30)) throw new Refusal('transfer_too_many_files', 500);
      const options: Record<string, unknown> = {
        get_a_link: false,
        add_me_to_recipients: false,
        email_recipient_when_transfer_expires: true,
        hide_sender_email: false,
      };
      if (d.options && typeof d.options === 'object' && !Array.isArray(d.options) && 'get_a_link' in d.options)
        options.get_a_link = d.options.get_a_link;
      if (Array.isArray(d.options) && d.options.includes('get_a_link')) options.get_a_link = 1;
      const recipients: string[] = Array.isArray(d.recipients) ? d.recipients : [];
      if (!recipients.length && !options.get_a_link) throw new Refusal('transfer_no_recipients', 500);
      // Transfer::create: a remote user's from is taken as given, and must be an address.
      if (typeof d.from !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(d.from)) throw new Refusal('bad_email', 500);
      const now = Math.floor(Date.now() / 1000);
      if (d.expires && Number(d.expires) > now + 21 * 86400) throw new Refusal('bad_expire', 500);
      const encrypted = d.encryption === true;
      if (o.mandatory && !encrypted) throw new Refusal('transfer_must_be_encrypted', 500);
      options.encryption = encrypted;
      const t: EmulatedTransfer = {
        id: nextId++,
        userEmail: d.from,
        subject: d.subject || null,
        message: d.message || null,
        created: now,
        expires: Number(d.expires) || now + 10 * 86400,
        status: 'started',
        options,
        salt: crypto.randomBytes(24).toString('base64'),
        roundtriptoken: crypto.randomBytes(16).toString('hex'),
        encrypted,
        keyVersion: d.encryption_key_version ?? null,
        passwordVersion: d.encryption_password_version ?? null,
        passwordEncoding: d.encryption_password_encoding ?? null,
        iterations: d.encryption_password_hash_iterations ?? null,
        files: d.files.map((f: any) => {
          const size = Number(f.size);
          const stored = encrypted ? size + Math.ceil(size / chunk) * OVERHEAD : size;
          return {
            id: nextId++,
            name: String(f.name),
            size,
            mime: f.mime_type ?? '',
            iv: f.iv ?? null,
            aead: f.aead ?? null,
            puid: crypto.randomUUID(),
            data: Buffer.alloc(stored),
            written: 0,
            complete: false,
          };
        }),
        recipients: (options.get_a_link ? [''] : recipients).map((email) => ({
          id: nextId++,
          email,
          token: crypto.randomUUID(),
        })),
      };
      transfers.set(t.id, t);
      return {
        status: 201,
        data: cast(t, {
          sizes: d.files.map((f: any) => String(f.size)),
          cids: d.files.map((f: any) => (f.cid === '0' ? false : f.cid)),
          expiresRaw: String(t.expires),
        }),
      };
    }
    if (endpoint === 'transfer' && id === 'fileidsextended' && method === 'get') {
      const t = byToken(u.searchParams.get('token') ?? '');
      if (!t) throw new Refusal('transfer_presumed_expired', 500);
      return {
        data: t.files.map((f) => ({
          id: f.id,
          encrypted: t.encrypted,
          mime: f.mime,
          name: f.name,
          size: f.size,
          'encrypted-size': f.data.length,
          encrypted_size: f.data.length,
          key_version: t.keyVersion,
          key_salt: t.salt,
          password_version: t.passwordVersion,
          password_encoding: t.passwordEncoding ?? 'none',
          password_hash_iterations: t.iterations,
          client_entropy: null,
          fileiv: f.iv,
          fileaead: f.aead,
          transferid: t.id,
        })),
      };
    }
    if (endpoint === 'transfer' && id && /^\d+$/.test(id)) {
      const t = transfers.get(Number(id));
      if (!t) throw new Refusal('transfer_not_found', 500);
      // A closed transfer is still found (Transfer::fromId), and its answer looks like any other's.
      if (method === 'get') return { data: cast(t) };
      if (method === 'delete') {
        transfers.delete(t.id);
        return { data: null };
      }
      if (method === 'put' && input().complete) {
        if (t.status !== 'available') {
          if (t.files.some((f) => !f.complete)) throw new Refusal('transfer_files_incomplete', 500);
          t.status = 'available';
        }
        return { data: cast(t) };
      }
    }
    if (endpoint === 'file' && id && /^\d+$/.test(id) && method === 'put') {
      const { t, f } = fileById(Number(id));
      if (mode === 'chunk') {
        if (t.status !== 'started' && t.status !== 'uploading')
          throw new Refusal('cannot_add_data_to_complete_transfer', 400, { target_type: 'File', target_id: f.id });
        if (failIn === 0) {
          failIn = -1;
          throw new Refusal('storage_filesystem_cannot_write', 500);
        }
        if (failIn > 0) failIn--;
        const offset = Number(offsetRaw ?? 0);
        const h = (n: string) => (req.headers[n] === undefined ? null : Number(req.headers[n]));
        const dataLength = t.encrypted ? body.length - OVERHEAD : body.length;
        if (h('x-filesender-file-size') !== null && h('x-filesender-file-size') !== f.size)
          throw new Refusal('rest_sanity_check_failed', 400, { check: 'file_size' });
        if (h('x-filesender-chunk-offset') !== null && h('x-filesender-chunk-offset') !== offset)
          throw new Refusal('rest_sanity_check_failed', 400, { check: 'chunk_offset' });
        if (h('x-filesender-chunk-size') !== null && h('x-filesender-chunk-size') !== dataLength)
          throw new Refusal('rest_sanity_check_failed', 400, { check: 'chunk_size' });
        if (dataLength > chunk || offset + dataLength > f.size) throw new Refusal('file_chunk_out_of_bounds', 500);
        const at = t.encrypted ? (offset / chunk) * crypted : offset;
        body.copy(f.data, at);
        f.written = Math.max(f.written, at + body.length);
        t.status = 'uploading';
        return { data: { offset: at, written: body.length } };
      }
      if (input().complete) {
        // StorageFilesystem::completeFile: the stored size must be the file's (encrypted: with every chunk's 32).
        if (f.written !== f.data.length) throw new Refusal('file_integrity_check_failed', 500);
        f.complete = true;
        return { data: true };
      }
    }
    if (endpoint === 'guest' && method === 'post') {
      const d = input();
      if (typeof d.from !== 'string' || !d.from.includes('@')) throw new Refusal('bad_email', 500);
      const now = Math.floor(Date.now() / 1000);
      const g = {
        id: nextId++,
        userid: 15,
        user_email: d.from,
        email: d.recipient,
        token: crypto.randomUUID(),
        subject: d.subject,
        message: d.message,
        created: date(now),
        expires: date(Number(d.expires) || now + 20 * 86400),
      };
      guests.push({ ...g, options: d.options });
      return { status: 201, data: { ...g, upload_url: `${site}/?s=upload&vid=${g.token}` } };
    }
    throw new Refusal('rest_method_not_implemented', 501);
  };

  const page = (res: http.ServerResponse, u: URL) => {
    const t = u.searchParams.get('s') === 'download' ? byToken(u.searchParams.get('token') ?? '') : null;
    const q = (v: unknown) =>
      String(v ?? '')
        .replace(/&/g, '&amp;')
        .replace(/"/g, '&quot;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/'/g, '&#039;');
    const rows = t
      ? t.files
          .map(
            (f) => `<tr class="file" data-id="${q(f.id)}"
                data-encrypted="${t.encrypted ? '1' : ''}"
                data-mime="${q(f.mime)}"
                data-chunk-size="${chunk}"
                data-crypted-chunk-size="${crypted}"
                data-name="${q(f.name)}"
                data-size="${q(f.size)}"
                data-encrypted-size="${q(f.data.length)}"
                data-key-version="${q(t.keyVersion)}"
                data-key-salt="${q(t.salt)}"
                data-password-version="${q(t.passwordVersion ?? 1)}"
                data-password-encoding="${q(t.passwordEncoding ?? 'none')}"
                data-password-hash-iterations="${q(t.iterations ?? 150000)}"
                data-client-entropy=""
                data-fileiv="${q(f.iv)}"
                data-fileaead="${q(f.aead)}"
                data-transferid="${q(t.id)}"
            ><td>${q(f.name)}</td></tr>`,
          )
          .join('\n')
      : '';
    res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' });
    res.end(`<!DOCTYPE html><html><body><table>${rows}</table></body></html>`);
  };

  const download = (req: http.IncomingMessage, res: http.ServerResponse, u: URL) => {
    const t = byToken(u.searchParams.get('token') ?? '');
    const ids = (u.searchParams.get('files_ids') ?? '').split(',').filter(Boolean);
    if (!t || !ids.length) {
      res.writeHead(302, { location: `/?s=exception&sid=${crypto.randomBytes(6).toString('hex')}` });
      return res.end();
    }
    if (!u.searchParams.get('transaction_id')) {
      u.searchParams.set('transaction_id', crypto.randomUUID());
      res.writeHead(302, { location: `download.php?${u.searchParams.toString()}` });
      return res.end();
    }
    const f = t.files.find((x) => x.id === Number(ids[0]));
    if (!f) {
      res.writeHead(500, { 'content-type': 'text/html; charset=UTF-8' });
      return res.end('<html><body>file_not_found</body></html>');
    }
    const range = /^bytes=(\d+)?-(\d+)?$/.exec(String(req.headers.range ?? ''));
    if (range) {
      const start = Number(range[1] ?? 0);
      // download.php: an open end is the file's size, so the announced length is one more than what it reads.
      const end = range[2] !== undefined ? Number(range[2]) : f.size;
      const from = t.encrypted ? (start / chunk) * crypted : start;
      const bytes = f.data.subarray(from, Math.min(f.data.length, from + (end - start + 1)));
      res.writeHead(206, {
        'content-type': f.mime,
        'content-length': String(end - start + 1),
        'content-range': `bytes ${start}-${end}/${f.size}`,
        connection: 'close',
      });
      res.write(bytes);
      // Like PHP's shutdown, the connection closes with what was read, announced or not.
      return res.socket?.end(() => res.socket?.destroy());
    }
    res.writeHead(200, {
      'content-type': f.mime,
      'content-length': String(f.data.length),
      'content-disposition': `attachment; filename="${f.name}"`,
      'accept-ranges': 'bytes',
    });
    res.end(f.data);
  };

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      const u = new URL(req.url ?? '/', site);
      log.push(`${req.method} ${u.pathname}`);
      if (u.pathname === '/filesender-config.js.php') {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=UTF-8' });
        return res.end(config);
      }
      if (u.pathname === '/download.php') return download(req, res, u);
      if (!u.pathname.startsWith('/rest.php/')) return page(res, u);
      let status = 200;
      let data: unknown;
      try {
        const user = authenticate(req, u, body);
        ({ status = 200, data } = rest(req, u, body, user));
      } catch (e) {
        const r = e instanceof Refusal ? e : new Refusal('internal_error', 500);
        status = r.status;
        data = { message: r.id, uid: crypto.randomBytes(6).toString('hex'), details: r.details };
      }
      const answer = () => {
        res.writeHead(status, { 'content-type': 'application/json', date: new Date().toUTCString() });
        res.end(JSON.stringify(data));
      };
      if (o.chunkDelayMs && u.pathname.includes('/chunk/')) setTimeout(answer, o.chunkDelayMs);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: site,
    rest: `${site}/rest.php`,
    users,
    transfers,
    guests,
    log,
    failChunkAfter: (after) => {
      failIn = after;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
