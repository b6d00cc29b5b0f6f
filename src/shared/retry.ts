/**
 * When a client (the web page's uploader, `ferry send` and `ferry get`) tries a request again and how long it
 * waits first: one policy for both. Network errors, 5xx and 429 are worth another try (a restarting server, a
 * busy one); other 4xx are the request's own fault, and so are 501 (not implemented) and 507 (a full disk or
 * quota does not heal while a client waits). The random source and the clock are injected, so the sequence is
 * testable (docs/architecture.md, One client core).
 */
export interface RetryPolicy {
  /** Further attempts after the first. */
  retries: number;
  /** First wait; it doubles up to maxDelayMs, and no wait is shorter (a re-signed request gets a new timestamp). */
  baseDelayMs: number;
  maxDelayMs: number;
}

/** About two minutes of waiting in all before a request is given up (1+2+4+8+16+30+30+30 s). */
export const DEFAULT_RETRY: RetryPolicy = { retries: 8, baseDelayMs: 1000, maxDelayMs: 30_000 };

/** Longest Retry-After taken from a server: an hour. */
const MAX_RETRY_AFTER_S = 3600;

export function retryableStatus(status: number): boolean {
  return status === 429 || status === 408 || (status >= 500 && status !== 501 && status !== 507);
}

/**
 * Network failures that a later attempt may get through, by their code (Node's, and the client's own for an
 * idle socket or a short body); anything else (a bad URL, TLS refusals) is final. The browser cannot tell
 * these apart: every failed fetch is one (web/lib/api.ts, NetworkError).
 */
const RETRYABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'ERR_STREAM_PREMATURE_CLOSE',
  'IDLE_TIMEOUT',
  'SHORT_BODY',
]);

export function retryableNetworkError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_CODES.has(code);
}

/**
 * The wait before attempt `attempt` (1 = the first retry): exponential with jitter (half to all of the step,
 * so that four parallel chunks refused together do not come back together), never below the policy's first
 * wait, never below the server's Retry-After (seconds).
 */
export function retryDelay(
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  attempt: number,
  retryAfterS?: number | null,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = step / 2 + (random() * step) / 2;
  return Math.round(Math.max(policy.baseDelayMs, jittered, (retryAfterS ?? 0) * 1000));
}

/** Retry-After in seconds, from its delta-seconds form or an HTTP date (taken from `now`, ms); else null. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(MAX_RETRY_AFTER_S, Number(v));
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, Math.min(MAX_RETRY_AFTER_S, (t - now) / 1000));
}

/**
 * The same policy for an engine that counts its own failures (the web page's uploader, which shares one wait
 * among the chunks that failed together): each `next` is the wait after one more failure in a row.
 */
export class Backoff {
  private failures = 0;
  constructor(
    private readonly policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'> = DEFAULT_RETRY,
    private readonly random: () => number = Math.random,
  ) {}

  next(retryAfterS?: number | null): number {
    this.failures += 1;
    return retryDelay(this.policy, this.failures, retryAfterS, this.random);
  }

  reset(): void {
    this.failures = 0;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
