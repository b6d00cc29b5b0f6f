import http from 'node:http';
import https from 'node:https';
import { specError } from '../shared/error-body';
import { signatureOf, signingHead, sortedQuery } from '../util/signing';
import type { Credentials } from './credentials';
import { ApiError, ClientError, namedFailure } from './errors';
import {
  DEFAULT_RETRY,
  parseRetryAfter,
  retryableNetworkError,
  retryableStatus,
  retryDelay,
  RetryPolicy,
  sleep,
} from '../shared/retry';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A socket that moves no byte for this long is given up (and the request retried). */
const IDLE_MS = 60_000;

function networkError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** One HTTP exchange, the whole answer read into memory (API answers are small). */
export function exchange(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  agent: http.Agent,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = openRequest(url, method, headers, agent, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      res.on('error', reject);
      res.on('aborted', () => reject(networkError('ECONNRESET', 'the answer was cut')));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A request whose answer is streamed to the caller (downloads); the body, if any, is sent at once. */
export function openRequest(
  url: URL,
  method: string,
  headers: Record<string, string>,
  agent: http.Agent,
  onResponse: (res: http.IncomingMessage) => void,
): http.ClientRequest {
  const mod = url.protocol === 'https:' ? https : http;
  const req = mod.request(url, { method, headers, agent }, (res) => {
    res.setTimeout?.(IDLE_MS);
    onResponse(res);
  });
  req.setTimeout(IDLE_MS, () => req.destroy(networkError('IDLE_TIMEOUT', `no data for ${IDLE_MS / 1000} s`)));
  return req;
}

export function agentFor(url: string, sockets: number): http.Agent {
  const opts = { keepAlive: true, maxSockets: sockets };
  return url.startsWith('https:') ? new https.Agent(opts) : new http.Agent(opts);
}

export interface CallOptions {
  json?: unknown;
  /** Raw bytes (a chunk); signed as they are. */
  body?: Buffer;
  headers?: Record<string, string>;
  /** Query arguments besides the signing ones. */
  args?: Record<string, string | number>;
  /** What the call does, for messages ("creating the transfer"). */
  what: string;
  /** Seconds to date the signature ahead (a big chunk on a slow link must still be in its window on arrival). */
  ahead?: () => number;
  /**
   * Asked before each retry: true when what the call was to do is done after all (a chunk the server stored
   * before the connection broke on its answer), which ends the call without sending it again.
   */
  doneAfterAll?: () => Promise<boolean>;
  /** Overrides the policy's number of retries for this call (0: one attempt). */
  retries?: number;
  /** A 2xx answer may have an empty body (DELETE); any other 2xx answer must be JSON. */
  emptyOk?: boolean;
}

export interface RetryNotice {
  what: string;
  reason: string;
  attempt: number;
  delayMs: number;
}

/**
 * ferry's REST API as a remote user: every request signed with the user's secret exactly as
 * src/auth/signature.ts checks it, and retried with backoff on network errors, 5xx and 429. Each attempt is
 * signed anew (a new timestamp, so the server's replay check never refuses a retry). The server's clock,
 * read from each answer's Date header, dates the signatures, so a client whose clock is off still signs
 * inside the server's window.
 */
export class FerryApi {
  private offsetMs = 0;
  /** Signing as a user; without it (a recipient's download link), requests go unsigned. */
  readonly creds: Credentials | null;
  readonly url: string;
  /** The host part signed, when it is not the URL's host (FileSender behind a stock fastcgi setup signs no port). */
  signHost: string | undefined;
  /** Added to `ahead` after a chunk arrived too late for its signature: grows until they arrive in time. */
  private extraAheadS = 0;
  readonly agent: http.Agent;

  constructor(
    who: Credentials | { url: string },
    readonly opts: { retry?: RetryPolicy; sockets?: number; onRetry?: (n: RetryNotice) => void } = {},
  ) {
    this.url = who.url;
    this.creds = 'secret' in who ? who : null;
    this.agent = agentFor(who.url, opts.sockets ?? 8);
  }

  get retry(): RetryPolicy {
    return this.opts.retry ?? DEFAULT_RETRY;
  }

  /** The server's time now, in UNIX seconds (as far as its last Date header tells). */
  serverNow(): number {
    return Math.floor((Date.now() + this.offsetMs) / 1000);
  }

  /** Takes the clock another client of the same server has learnt. */
  copyClock(other: FerryApi): void {
    this.offsetMs = other.offsetMs;
  }

  /** Learns the server's clock from an answer; Date has whole seconds, so only a gap of 2 s or more counts. */
  noteDate(date: string | undefined): void {
    const t = date ? Date.parse(date) : NaN;
    if (Number.isNaN(t)) return;
    const gap = t - Date.now();
    this.offsetMs = Math.abs(gap) >= 2000 ? gap : 0;
  }

  /** The full URL of a request; when signed: the arguments, remote_user and timestamp, sorted, then the signature. */
  signedUrl(
    method: string,
    path: string,
    args: Record<string, string | number>,
    body: Buffer | undefined,
    aheadS = 0,
  ): URL {
    const base = new URL(this.url);
    const all: Record<string, string> = { ...Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)])) };
    if (!this.creds) {
      const q = new URLSearchParams(all).toString();
      return new URL(`${base.origin}${base.pathname.replace(/\/+$/, '')}${path}${q ? `?${q}` : ''}`);
    }
    all.remote_user = this.creds.user;
    all.timestamp = String(this.serverNow() + aheadS);
    const pairs = Object.entries(all).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
    const query = sortedQuery(pairs);
    const prefix = base.pathname.replace(/\/+$/, '');
    const head = signingHead(method, `${this.signHost ?? base.host}${prefix}${path}`, query);
    const signature = signatureOf(this.creds.secret, head, body).toString('hex');
    return new URL(`${base.origin}${prefix}${path}?${query}&signature=${signature}`);
  }

  /** A signed call; the parsed JSON answer on 2xx, else ApiError (after retries where retrying makes sense). */
  async call<T = unknown>(method: string, path: string, o: CallOptions): Promise<T> {
    const body = o.json !== undefined ? Buffer.from(JSON.stringify(o.json)) : o.body;
    const headers: Record<string, string> = { accept: 'application/json', ...(o.headers ?? {}) };
    if (o.json !== undefined) headers['content-type'] = 'application/json';
    if (body) headers['content-length'] = String(body.length);
    for (let attempt = 0; ; attempt++) {
      let reason: string;
      let retryAfter: number | null = null;
      try {
        const ahead = (o.ahead?.() ?? 0) + (body && body.length > 65536 ? this.extraAheadS : 0);
        const url = this.signedUrl(method, path, o.args ?? {}, body, ahead);
        const res = await exchange(url, method, headers, body, this.agent);
        this.noteDate(res.headers.date);
        const request = `${method} ${requestPath(this.url, path)}`;
        if (res.status >= 200 && res.status < 300) {
          const j = parseJson(res.body);
          // A proxy's or login page's HTML on 200 is not an answer of the REST interface: say so, naming both.
          if (j === null && !(o.emptyOk && isEmptyJson(res.body)))
            throw new ClientError(
              `${o.what}: ${request} answered ${describeAnswer(res)}, which is not the JSON of a REST answer`,
              2,
            );
          return j as T;
        }
        const err = errorBody(res);
        if (
          err.id === 'auth_remote_signature_check_failed' &&
          this.signHost === undefined &&
          new URL(this.url).port !== ''
        ) {
          // FileSender signs SERVER_NAME, which a stock fastcgi setup gives without the port: sign the host alone from now on.
          // Asked again at once, not counted as a retry: nothing failed but the choice of host.
          this.signHost = new URL(this.url).hostname;
          attempt--;
          continue;
        } else if (err.id === 'auth_remote_too_late') {
          // ferry answers it with 401, FileSender with 500.
          // The clock was just read from this answer; a big body may also need a later timestamp to arrive in time.
          if (body && body.length > 65536) this.extraAheadS = Math.min(3600, Math.max(30, this.extraAheadS * 2));
          reason = 'signature out of its time window';
        } else if (retryableStatus(res.status) && !namedFailure(res.status, err.id)) {
          reason = `${res.status} ${err.id}`;
          retryAfter = parseRetryAfter(res.headers['retry-after'] as string | undefined);
        } else {
          throw new ApiError(res.status, err.id, err.details, `${o.what} (${request})`);
        }
        if (attempt >= (o.retries ?? this.retry.retries))
          throw new ApiError(res.status, err.id, err.details, `${o.what} (${request}, after ${attempt + 1} attempts)`);
      } catch (e) {
        if (e instanceof ClientError) throw e;
        if (!retryableNetworkError(e)) throw new ClientError(`${o.what}: ${describeNetworkError(e, this.url)}`, 2);
        reason = describeNetworkError(e, this.url);
        if (attempt >= (o.retries ?? this.retry.retries))
          throw new ClientError(`${o.what}: ${reason} (after ${attempt + 1} attempts)`, 2);
      }
      const delayMs = retryDelay(this.retry, attempt + 1, retryAfter);
      this.opts.onRetry?.({ what: o.what, reason, attempt: attempt + 1, delayMs });
      await sleep(delayMs);
      if (o.doneAfterAll && (await o.doneAfterAll().catch(() => false))) return null as T;
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The request as a message names it: the path below the server's URL, without the signing arguments. */
export function requestPath(base: string, path: string): string {
  return `${new URL(base).pathname.replace(/\/+$/, '')}${path}`;
}

function isEmptyJson(body: Buffer): boolean {
  const t = body.toString('utf8').trim();
  return t === '' || t === 'null';
}

/** An answer in a few words for a message: status, content type and the start of its body, control characters dropped. */
export function describeAnswer(res: { status: number; headers: http.IncomingHttpHeaders; body: Buffer }): string {
  const type = String(res.headers['content-type'] ?? 'no content type').split(';')[0];
  const text = res.body
    .subarray(0, 120)
    .toString('utf8')
    .replace(/[\x00-\x1f\x7f]+/g, ' ')
    .trim();
  return `${res.status} (${type}${res.body.length ? `, ${res.body.length} bytes: ${JSON.stringify(text.length < res.body.length ? `${text}…` : text)}` : ', empty'})`;
}

export function parseJson(body: Buffer): unknown {
  if (!body.length) return null;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
}

/** The spec's error body (src/shared/error-body.ts), or the status alone when the answer is not one (a proxy's HTML page). */
export function errorBody(res: RawResponse): { id: string; details: string[] } {
  return specError(parseJson(res.body)) ?? { id: `HTTP ${res.status}${describeNonJson(res)}`, details: [] };
}

function describeNonJson(res: RawResponse): string {
  if (!res.body.length) return '';
  const d = describeAnswer(res);
  return ` ${d.slice(d.indexOf('('))}`;
}

export function describeNetworkError(e: unknown, url: string): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  const host = (() => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  })();
  if (code === 'ECONNREFUSED') return `cannot connect to ${host} (connection refused)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot find the host ${host}`;
  if (code === 'IDLE_TIMEOUT') return `${host} stopped answering`;
  return `${code ? `${code}: ` : ''}${e instanceof Error ? e.message : String(e)}`;
}
