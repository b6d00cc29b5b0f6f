/**
 * When to try a request again and how long to wait first. Network errors, 5xx and 429 are worth another try
 * (a restarting server, a full disk being cleared, a busy server); other 4xx are the request's own fault.
 */
export interface RetryPolicy {
  /** Further attempts after the first. */
  retries: number;
  /** First wait; it doubles up to maxDelayMs. At least a second, so a re-signed request gets a new timestamp. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/** About two minutes of waiting in all before a request is given up (1+2+4+8+16+30+30+30 s). */
export const DEFAULT_RETRY: RetryPolicy = { retries: 8, baseDelayMs: 1000, maxDelayMs: 30_000 };

export function retryableStatus(status: number): boolean {
  return status === 429 || status === 408 || (status >= 500 && status !== 501);
}

/** Network failures that a later attempt may get through; anything else (a bad URL, TLS refusals) is final. */
export function retryableNetworkError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code ?? '';
  return [
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
  ].includes(code);
}

/**
 * The wait before attempt `attempt` (1 = the first retry): exponential with jitter (half to all of the step,
 * so that four parallel chunks refused together do not come back together), never below the server's
 * Retry-After, never below a second.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterS?: number | null,
  random = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = step / 2 + (random() * step) / 2;
  return Math.max(1000, jittered, (retryAfterS ?? 0) * 1000);
}

/** Retry-After in seconds (its delta-seconds form; an HTTP date is taken from now), or null. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Math.min(3600, Number(value.trim()));
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : Math.max(0, Math.min(3600, (t - now) / 1000));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
