import { useState } from 'preact/hooks';
import { useApp } from './context';
import { useResource } from './use-resource';

/** Rows per page of the admin's lists. */
export const PAGE_SIZE = 50;

/**
 * One page of a long list, read by key (`?limit=N&after=<the last id of the page before>`, docs/architecture.md,
 * "Lists and pages"): the page never loads a whole list, so it stays fast with a million transfers. One more row
 * than the page shows is asked for, to know whether a next page exists; the keys of the pages visited are kept
 * to go back.
 *
 * The rows, their position and the buttons all come from the page that arrived, never from the one asked for:
 * while the next page is on its way the list still says "1–50" beside the first fifty rows, and the buttons wait,
 * so a second click cannot skip a page it computed from rows not yet shown.
 */
export function usePages<T>(path: string, keyOf: (item: T) => string | number, size = PAGE_SIZE) {
  const { api } = useApp();
  const [keys, setKeys] = useState<string[]>([]);
  const after = keys.length ? keys[keys.length - 1] : null;
  const query = `limit=${size + 1}${after === null ? '' : `&after=${encodeURIComponent(after)}`}`;
  const res = useResource(async () => ({ query, keys, rows: await api.get<T[]>(`${path}?${query}`) }), [query]);
  const shown = res.data;
  const waiting = !res.error && shown?.query !== query;
  const items = shown ? shown.rows.slice(0, size) : null;
  return {
    items,
    error: res.error,
    reload: res.reload,
    /** The position of the page's first row (1 on the first page). */
    first: (shown?.keys.length ?? 0) * size + 1,
    hasNext: !!shown && shown.rows.length > size,
    hasPrev: !!shown && shown.keys.length > 0,
    /** A page was asked for and has not arrived yet: the buttons wait. */
    waiting,
    next: () => {
      if (shown && items?.length) setKeys([...shown.keys, String(keyOf(items[items.length - 1]))]);
    },
    prev: () => {
      if (shown) setKeys(shown.keys.slice(0, -1));
    },
  };
}

export type Pages<T> = ReturnType<typeof usePages<T>>;
