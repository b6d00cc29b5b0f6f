import { useApp } from '../lib/context';
import { endOfDay, formatMoment } from '../lib/format';

/**
 * The chosen day's end in the page's one format, with the reader's zone named ("Until 5 Dec 2026, 23:59
 * CET"), beside the day list.
 */
export function ExpiryHint({ id, iso, max }: { id: string; iso: string; max: number }) {
  const { t, lang } = useApp();
  const end = endOfDay(iso);
  return (
    <p class="hint" id={id} aria-live="polite">
      {end === null
        ? t('ui_expiry_hint', { count: max })
        : t('ui_expiry_chosen', { date: formatMoment(end, lang), count: max })}
    </p>
  );
}
