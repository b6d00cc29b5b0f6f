import { useApp } from '../lib/context';
import { endOfDay, formatDay } from '../lib/format';

/**
 * The chosen day in the page's one format ("Until 5 Dec 2026"), beside the browser's date field, which
 * shows the day in the browser's own numeric format (12/05/2026 could be either day).
 */
export function ExpiryHint({ id, iso, max }: { id: string; iso: string; max: number }) {
  const { t, lang } = useApp();
  const end = endOfDay(iso);
  return (
    <p class="hint" id={id} aria-live="polite">
      {end === null
        ? t('ui_expiry_hint', { count: max })
        : t('ui_expiry_chosen', { date: formatDay(end, lang), count: max })}
    </p>
  );
}
