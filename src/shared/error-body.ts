/**
 * The spec's error body (`message`, the error's id, and `details`) as both clients read it, the web page's
 * (web/lib/api.ts) and the terminal's (src/client/http.ts). ferry's `details` is a list; FileSender's an object
 * (`{"method":"get","endpoint":"user"}`) or null: both are kept, as strings. Null when the JSON is not an error
 * body (a proxy's page, an empty answer): each client then names the status its own way.
 */
export function specError(json: unknown): { id: string; details: string[] } | null {
  if (!json || typeof json !== 'object') return null;
  const j = json as { message?: unknown; details?: unknown };
  if (typeof j.message !== 'string') return null;
  let details: string[] = [];
  if (Array.isArray(j.details)) details = j.details.map(String);
  else if (j.details && typeof j.details === 'object')
    details = Object.entries(j.details as Record<string, unknown>).map(
      ([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`,
    );
  return { id: j.message, details };
}
