import { ClientError } from '../errors';
import { describeAnswer, describeNetworkError, exchange, FerryApi, parseJson, requestPath } from '../http';
import { parseRetryAfter, retryableNetworkError, retryableStatus, retryDelay, sleep } from '../../shared/retry';
import { parseConfigScript, type ConfigValue } from './filesender-config';
import type { ServerKind } from './server';

/** Where a server's REST interface is and what it said of itself. */
export interface FoundServer {
  kind: ServerKind;
  /** The URL REST paths are appended to (`https://host` for ferry, `https://host/rest.php` for FileSender). */
  restUrl: string;
  /** The site's own URL (pages, download.php, the settings script). */
  siteUrl: string;
  info: Record<string, unknown>;
  /** FileSender's settings script, read as text (filesender-config.ts); null for ferry. */
  config: Record<string, ConfigValue> | null;
}

/**
 * Finds the REST interface under the URL the user gave (`https://host/`, `https://host/rest.php`, or a path
 * prefix), and tells ferry from FileSender: both answer GET {rest}/info, and only ferry's answer names its
 * `version`. A FileSender site answers its home page, not JSON, at {site}/info: then {site}/rest.php is tried.
 */
export async function detectServer(url: string, api: FerryApi): Promise<FoundServer> {
  const base = url.replace(/\/+$/, '');
  const candidates = /\/rest\.php$/.test(base) ? [base] : [base, `${base}/rest.php`];
  const tried: string[] = [];
  for (const rest of candidates) {
    const u = new URL(`${rest}/info`);
    const res = await retried(api, u, 'reading the server settings');
    const info = res.status === 200 ? parseJson(res.body) : null;
    if (info && typeof info === 'object' && !Array.isArray(info)) {
      const i = info as Record<string, unknown>;
      const siteUrl = rest.replace(/\/rest\.php$/, '');
      if (typeof i.version === 'string') return { kind: 'ferry', restUrl: rest, siteUrl, info: i, config: null };
      return { kind: 'filesender', restUrl: rest, siteUrl, info: i, config: await readConfigScript(api, siteUrl) };
    }
    tried.push(`GET ${requestPath(rest, '/info')} answered ${describeAnswer(res)}`);
  }
  throw new ClientError(
    `reading the server settings: ${tried.join('; ')}. That is not FileSender's REST interface: the server's address is https://host/ or https://host/rest.php`,
    1,
  );
}

/** FileSender's settings script (`{site}/filesender-config.js.php`), where the encrypted chunk size and crypto parameters are. */
async function readConfigScript(api: FerryApi, siteUrl: string): Promise<Record<string, ConfigValue>> {
  const u = new URL(`${siteUrl}/filesender-config.js.php`);
  const res = await retried(api, u, 'reading the server settings script');
  const parsed = res.status === 200 ? parseConfigScript(res.body.toString('utf8')) : null;
  if (!parsed)
    throw new ClientError(
      `reading the server settings script: GET ${u.pathname} answered ${describeAnswer(res)}, not FileSender's window.filesender.config`,
      2,
    );
  return parsed;
}

/** An unsigned GET, retried like every call on the network's and the server's passing failures. */
async function retried(api: FerryApi, u: URL, what: string) {
  for (let attempt = 0; ; attempt++) {
    let reason: string;
    let retryAfter: number | null = null;
    try {
      const res = await exchange(u, 'GET', { accept: 'application/json, text/javascript' }, undefined, api.agent);
      api.noteDate(res.headers.date);
      if (!retryableStatus(res.status)) return res;
      reason = `${res.status}`;
      retryAfter = parseRetryAfter(res.headers['retry-after']);
      if (attempt >= api.retry.retries) return res;
    } catch (e) {
      if (!retryableNetworkError(e)) throw new ClientError(`${what}: ${describeNetworkError(e, u.href)}`, 2);
      reason = describeNetworkError(e, u.href);
      if (attempt >= api.retry.retries) throw new ClientError(`${what}: ${reason} (after ${attempt + 1} attempts)`, 2);
    }
    const delayMs = retryDelay(api.retry, attempt + 1, retryAfter);
    api.opts.onRetry?.({ what, reason, attempt: attempt + 1, delayMs });
    await sleep(delayMs);
  }
}
