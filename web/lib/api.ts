/**
 * The browser's REST client: the same endpoints every other client uses. Adds the security token that
 * cookie-authenticated state-changing requests need, and the guest token (`vid`) when the page acts for a
 * guest. Kept free of the DOM so the upload engine built on it runs under Node in tests. What is retried, and
 * how long after, is the policy every client shares (src/shared/retry.ts).
 */
import { specError } from '../../src/shared/error-body';
import { parseRetryAfter, retryableStatus } from '../../src/shared/retry';
import type { BodyCall, PostBodies, PutBodies } from '../../src/http/request-bodies';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ApiOptions {
  /** Prefix of every endpoint, e.g. "" (same origin) or "http://127.0.0.1:8080". */
  base?: string;
  /** Value of <meta name="ferry-security-token">; sent as X-Ferry-Security-Token. */
  securityToken?: string | null;
  /** Query arguments added to every request (the guest's `vid`). */
  query?: Record<string, string>;
  /** Extra headers on every request (tests authenticate through the header service provider). */
  headers?: Record<string, string>;
  fetch?: FetchLike;
}

/** An error answer of the REST API: `message` is the translatable id (docs/architecture.md, Errors). */
export class ApiError extends Error {
  constructor(
    readonly id: string,
    readonly status: number,
    readonly details: string[] | null = null,
    /** The answer's Retry-After, in seconds (a 429 or 503 saying when to come back); null when it had none. */
    readonly retryAfterS: number | null = null,
  ) {
    super(id);
  }
}

/** The request never got an answer: connection refused or cut, DNS, offline. Worth retrying. */
export class NetworkError extends Error {}

export interface RequestInitEx {
  json?: unknown;
  body?: Blob | ArrayBuffer | Uint8Array;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Bytes of the body sent so far, as they leave. In the browser this comes from XMLHttpRequest's upload
   * progress (fetch has none); elsewhere (Node, or a fetch given in the options) once, when the answer came.
   */
  onProgress?: (loaded: number) => void;
}

export class Api {
  readonly base: string;
  constructor(private readonly opts: ApiOptions = {}) {
    this.base = opts.base ?? '';
  }

  /** The options a copy of this client needs in a worker (the upload engine's, web/upload/upload-worker.ts). */
  portable(): Omit<ApiOptions, 'fetch'> {
    const { fetch: _own, ...rest } = this.opts;
    return rest;
  }

  get isGuest(): boolean {
    return Boolean(this.opts.query?.vid);
  }

  url(path: string, query: Record<string, string> = {}): string {
    const q = new URLSearchParams({ ...(this.opts.query ?? {}), ...query }).toString();
    return `${this.base}${path}${q ? (path.includes('?') ? '&' : '?') + q : ''}`;
  }

  async request<T = unknown>(method: string, path: string, init: RequestInitEx = {}): Promise<T> {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      ...(this.opts.headers ?? {}),
      ...(init.headers ?? {}),
    };
    // On every method: a GET that acts (the audit log mailed) needs it too.
    if (this.opts.securityToken) headers['X-Ferry-Security-Token'] = this.opts.securityToken;
    let body: BodyInit | undefined;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.body !== undefined) {
      body = init.body as BodyInit;
    }
    const url = this.url(path, init.query);
    if (init.onProgress && !this.opts.fetch && typeof XMLHttpRequest !== 'undefined') {
      const { status, text, retryAfter } = await sendWithProgress(
        method,
        url,
        headers,
        body,
        init.signal,
        init.onProgress,
      );
      return answer<T>(status, text, retryAfter);
    }
    const doFetch = this.opts.fetch ?? ((input: string, i?: RequestInit) => fetch(input, i));
    let res: Response;
    try {
      res = await doFetch(url, { method, headers, body, signal: init.signal, credentials: 'same-origin' });
    } catch (e) {
      if (isAbort(e)) throw e;
      throw new NetworkError(e instanceof Error ? e.message : String(e));
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      if (isAbort(e)) throw e;
      throw new NetworkError('connection lost while reading the answer');
    }
    const out = answer<T>(res.status, text, res.headers.get('retry-after'));
    init.onProgress?.(bodySize(body));
    return out;
  }

  get<T = unknown>(path: string, init?: RequestInitEx) {
    return this.request<T>('GET', path, init);
  }
  /** A body as the route's schema takes it (src/http/request-bodies.ts, PostBodies). */
  post<T = unknown>(...[path, json]: BodyCall<PostBodies>) {
    return this.request<T>('POST', path, { json });
  }
  /** A body as the route's schema takes it (src/http/request-bodies.ts, PutBodies). */
  put<T = unknown>(...[path, json]: BodyCall<PutBodies>) {
    return this.request<T>('PUT', path, { json });
  }
  delete<T = unknown>(path: string) {
    return this.request<T>('DELETE', path);
  }
}

/** The answer's JSON, or the ApiError its status, `message` and Retry-After say. */
function answer<T>(status: number, text: string, retryAfter: string | null): T {
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
  }
  if (status < 200 || status > 299) {
    const err = specError(data);
    throw new ApiError(err?.id ?? `http_${status}`, status, err?.details ?? null, parseRetryAfter(retryAfter));
  }
  return data as T;
}

function bodySize(body: BodyInit | undefined): number {
  if (body instanceof Blob) return body.size;
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return body.byteLength;
  return typeof body === 'string' ? body.length : 0;
}

/** One request through XMLHttpRequest, whose upload events report the body's bytes as they are sent. */
function sendWithProgress(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: BodyInit | undefined,
  signal: AbortSignal | undefined,
  onProgress: (loaded: number) => void,
): Promise<{ status: number; text: string; retryAfter: string | null }> {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    const aborted = () => reject(new DOMException('The request was aborted', 'AbortError'));
    if (signal?.aborted) return aborted();
    const abort = () => x.abort();
    signal?.addEventListener('abort', abort, { once: true });
    const done = () => signal?.removeEventListener('abort', abort);
    x.open(method, url);
    for (const [k, v] of Object.entries(headers)) x.setRequestHeader(k, v);
    x.upload.onprogress = (e) => onProgress(e.loaded);
    x.onload = () => {
      done();
      onProgress(bodySize(body));
      resolve({ status: x.status, text: x.responseText, retryAfter: x.getResponseHeader('Retry-After') });
    };
    x.onerror = () => {
      done();
      reject(new NetworkError('no answer'));
    };
    x.onabort = () => {
      done();
      aborted();
    };
    x.send((body ?? null) as XMLHttpRequestBodyInit | null);
  });
}

export function isAbort(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: string }).name === 'AbortError';
}

/** Errors worth retrying after a pause: no answer, or the server/proxy saying "later" (src/shared/retry.ts). */
export function isTransient(e: unknown): boolean {
  if (e instanceof NetworkError) return true;
  return e instanceof ApiError && retryableStatus(e.status);
}
