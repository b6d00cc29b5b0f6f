import { Errors } from './errors';

/**
 * A page of a list. The lists of the REST interface (GET /transfer, /transfer/@all, /guest/@all, /user/@all)
 * answer everything when no page is asked for, as FileSender's clients expect. `?limit=N&offset=M` asks for one
 * page by position (the spec's way: the database still reads the M rows it skips); `?limit=N&after=K` asks for
 * the page that follows the item whose id is K in the list's order, read from the index from there on, so a
 * deep page costs what the first does and rows added or removed meanwhile neither repeat nor skip an item
 * (docs/architecture.md, "Lists and pages").
 */
export interface Page {
  limit: number;
  offset: number;
  /** The id of the last item of the previous page (key paging), or null (paging by offset). */
  after?: string | null;
}

/** The largest page one request may ask for. */
export const MAX_PAGE_SIZE = 1000;

/** The page that a request's `limit`, `offset` and `after` ask for; null when it gives none (the whole list). */
export function parsePage(query: Record<string, unknown>): Page | null {
  const { limit, offset, after } = query;
  if (limit === undefined && offset === undefined && after === undefined) return null;
  const number = (v: unknown, name: string, min: number, max: number, fallback: number): number => {
    if (v === undefined) return fallback;
    if (typeof v !== 'string' || !/^\d{1,9}$/.test(v)) throw Errors.restBadParameter(name);
    const n = Number(v);
    if (n < min || n > max) throw Errors.restBadParameter(name);
    return n;
  };
  if (after !== undefined) {
    // A key: at most as long as an id may be; not with an offset (the two ways of paging do not mix).
    if (typeof after !== 'string' || after.length === 0 || after.length > 256) throw Errors.restBadParameter('after');
    if (offset !== undefined) throw Errors.restBadParameter('offset');
  }
  return {
    limit: number(limit, 'limit', 1, MAX_PAGE_SIZE, MAX_PAGE_SIZE),
    offset: number(offset, 'offset', 0, Number.MAX_SAFE_INTEGER, 0),
    after: typeof after === 'string' ? after : null,
  };
}

/**
 * The key of a page of a list ordered by numeric id (transfers, guests): a positive whole number, else 400
 * naming `after`.
 */
export function numericAfter(page: Page): number | null {
  if (!page.after) return null;
  if (!/^[1-9]\d{0,15}$/.test(page.after) || !Number.isSafeInteger(Number(page.after)))
    throw Errors.restBadParameter('after');
  return Number(page.after);
}

/** A key that is a number is compared as one; anything else as text (user ids). */
function numericAfterOr(page: Page): number | string {
  return page.after && /^\d{1,15}$/.test(page.after) ? Number(page.after) : (page.after ?? '');
}

/**
 * The part of a whole list that a page shows (for lists read whole anyway), the list ordered as `key` gives:
 * after a key, the items that follow it in that order (whether or not the item itself is still there).
 */
export function pageOf<T>(list: T[], page: Page | null, key?: (item: T) => string | number, descending = false): T[] {
  if (!page) return list;
  if (page.after && key) {
    const numeric = numericAfterOr(page);
    if (list.length === 0) return [];
    const after = typeof key(list[0]) === 'number' ? numeric : page.after;
    const follows = (k: string | number) => (descending ? k < after : k > after);
    return list.filter((item) => follows(key(item))).slice(0, page.limit);
  }
  return list.slice(page.offset, page.offset + page.limit);
}
