/**
 * Browsers send `Origin` with every cross-site POST, PUT and DELETE. A request whose credentials the browser
 * attaches by itself (the local session cookie, or a reverse proxy's own session under the header SP) is
 * refused when its Origin names another site, so a page elsewhere cannot act with the user's credentials.
 * Clients that send no Origin (scripts, FileSender clients) are not concerned.
 */
export function isForeignOrigin(headers: Record<string, string | string[] | undefined>, baseUrl: string): boolean {
  const raw = headers.origin;
  const origin = Array.isArray(raw) ? raw[0] : raw;
  if (origin === undefined || origin === '') return false;
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return true; // "null" (sandboxed frames, privacy redirects) or garbage: not provably this site
  }
  const own = new Set<string>([String(headers.host ?? '').toLowerCase()]);
  try {
    own.add(new URL(baseUrl).host.toLowerCase());
  } catch {
    /* base_url is validated at start-up */
  }
  return !own.has(host);
}
