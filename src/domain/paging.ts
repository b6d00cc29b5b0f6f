import { Errors } from './errors';

/**
 * A page of a list: at most `limit` items after skipping `offset`, newest first. The lists of the REST
 * interface (GET /transfer, /transfer/@all, /guest/@all, /user/@all) answer everything when no page is asked
 * for, as FileSender's clients expect; `?limit=N&offset=M` asks for one page (docs/architecture.md, "Lists and
 * pages").
 */
export interface Page {
  limit: number;
  offset: number;
}

/** The largest page one request may ask for. */
export const MAX_PAGE_SIZE = 1000;

/** The page that a request's `limit` and `offset` ask for; null when it gives neither (the whole list). */
export function parsePage(query: Record<string, unknown>): Page | null {
  const { limit, offset } = query;
  if (limit === undefined && offset === undefined) return null;
  const number = (v: unknown, name: string, min: number, max: number, fallback: number): number => {
    if (v === undefined) return fallback;
    if (typeof v !== 'string' || !/^\d{1,9}$/.test(v)) throw Errors.restBadParameter(name);
    const n = Number(v);
    if (n < min || n > max) throw Errors.restBadParameter(name);
    return n;
  };
  return {
    limit: number(limit, 'limit', 1, MAX_PAGE_SIZE, MAX_PAGE_SIZE),
    offset: number(offset, 'offset', 0, Number.MAX_SAFE_INTEGER, 0),
  };
}

/** The part of a whole list that a page shows (for lists read whole anyway). */
export function pageOf<T>(list: T[], page: Page | null): T[] {
  return page ? list.slice(page.offset, page.offset + page.limit) : list;
}
