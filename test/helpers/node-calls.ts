import pg from 'pg';

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
