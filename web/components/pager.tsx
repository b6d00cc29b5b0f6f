import { useApp } from '../lib/context';
import type { Pages } from '../lib/use-pages';

/**
 * "51–100 of 1,234" and the buttons to the pages before and after: the total once the server counted it ("…"
 * while it counts); a list nobody counts (`total` left out) shows "51–100" alone, and nothing when it fits on
 * one page.
 */
export function Pager<T>({ pages, total, label }: { pages: Pages<T>; total?: number | null; label: string }) {
  const { t, lang } = useApp();
  const shown = pages.items?.length ?? 0;
  if (!pages.hasPrev && !pages.hasNext && total == null) return null;
  const from = (shown ? pages.first : 0).toLocaleString(lang);
  const to = (pages.first + shown - 1).toLocaleString(lang);
  const range =
    total === undefined
      ? `${from}–${to}`
      : t('ui_page_range', { from, to, total: total === null ? '…' : total.toLocaleString(lang) });
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" class="pager-prev" disabled={!pages.hasPrev || pages.waiting} onClick={pages.prev}>
        {t('ui_page_prev')}
      </button>
      <span class="pager-range" aria-live="polite">
        {range}
      </span>
      <button type="button" class="pager-next" disabled={!pages.hasNext || pages.waiting} onClick={pages.next}>
        {t('ui_page_next')}
      </button>
    </nav>
  );
}
