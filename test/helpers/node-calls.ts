import pg from 'pg';
import { HEADER_SP } from './server';
import { chunkHeaders } from './upload-client';

/**
 * What the tests of several `dist/ferry` nodes on one PostgreSQL ask of them: the rows the nodes left (one query,
 * its own connection, so a node's restart never breaks the test's pool) and a JSON call to one node.
 */

/** Runs one query on the database at `url` and answers its rows. */
export async function queryPostgres<T = Record<string, unknown>>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** A REST call to a node with these headers (a JSON body when `json` is given), bounded to `timeoutMs`. */
export async function callNode(
  node: { url: string },
  headers: Record<string, string>,
  method: string,
  p: string,
  json?: unknown,
  timeoutMs = 30_000,
) {
  const r = await fetch(`${node.url}${p}`, {
    method,
    headers: { ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await r.text();
  return { status: r.status, text, json: text ? JSON.parse(text) : undefined };
}

/**
 * The config every node of a cluster shares: one PostgreSQL, one mail transport, one store, and behind one load
 * balancer one public address (links in mail name it, not a node's port); no purge pass unless `more` sets one.
 */
export function clusterNodeConfig(
  databaseUrl: string,
  mailTransport: string,
  storage: Record<string, unknown>,
  more: Record<string, unknown> = {},
) {
  return {
    ...HEADER_SP,
    base_url: 'http://localhost:8080',
    database_url: databaseUrl,
    mail: { transport: mailTransport },
    purge_interval_s: 0,
    storage,
    ...more,
  };
}

/**
 * One chunk PUT to a node, as FileSender's clients send it: `bytes` at `offset` of a file of `fileSize` bytes,
 * bounded to `timeoutMs`. Answers the response for the caller to judge (a cluster's client retries a 503).
 */
export function putChunk(
  node: { url: string },
  headers: Record<string, string>,
  fileId: number,
  fileSize: number,
  offset: number,
  bytes: Buffer,
  timeoutMs = 60_000,
): Promise<Response> {
  return fetch(`${node.url}/file/${fileId}/chunk/${offset}`, {
    method: 'PUT',
    headers: { ...headers, ...chunkHeaders(fileSize, offset, bytes.length) },
    body: bytes as unknown as BodyInit,
    signal: AbortSignal.timeout(timeoutMs),
  });
}
