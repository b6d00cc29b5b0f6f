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
 */
export function usePages<T>(path: string, keyOf: (item: T) => string | number, size = PAGE_SIZE) {
  const { api } = useApp();
  const [keys, setKeys] = useState<string[]>([]);
  const after = keys.length ? keys[keys.length - 1] : null;
  const query = `limit=${size + 1}${after === null ? '' : `&after=${encodeURIComponent(after)}`}`;
  const res = useResource(() => api.get<T[]>(`${path}?${query}`), [query]);
  const items = res.data ? res.data.slice(0, size) : null;
  return {
    items,
    error: res.error,
    reload: res.reload,
    /** The position of the page's first row (1 on the first page). */
    first: keys.length * size + 1,
    hasNext: !!res.data && res.data.length > size,
    hasPrev: keys.length > 0,
    next: () => {
      if (items?.length) setKeys([...keys, String(keyOf(items[items.length - 1]))]);
    },
    prev: () => setKeys(keys.slice(0, -1)),
  };
}

export type Pages<T> = ReturnType<typeof usePages<T>>;
