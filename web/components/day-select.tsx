import { useApp } from '../lib/context';
import { endOfDay, formatDay, isoDay } from '../lib/format';

const DAY = 86400;

interface Props {
  id: string;
  /** yyyy-mm-dd, as the form keeps it. */
  value: string;
  onChange(iso: string): void;
  /** Days from today: the first and the last that may be chosen. */
  fromDays: number;
  toDays: number;
  describedBy?: string;
  disabled?: boolean;
}

/**
 * The expiry day as a list of days written in the page's language ("7 Dec 2026", "7 déc. 2026"): a browser's
 * date field writes the day in the browser's own format (12/07/2026 beside "Until 7 Dec 2026" on a French
 * page), whatever the page's language.
 */
export function DaySelect({ id, value, onChange, fromDays, toDays, describedBy, disabled }: Props) {
  const { lang } = useApp();
  const today = Math.floor(Date.now() / 1000);
  const days: string[] = [];
  for (let d = fromDays; d <= toDays; d++) days.push(isoDay(today + d * DAY));
  if (value && !days.includes(value)) days.push(value); // a day given by the caller stays shown
  return (
    <select
      id={id}
      class="day-select"
      value={value}
      aria-describedby={describedBy}
      disabled={disabled}
      onChange={(e) => onChange(e.currentTarget.value)}
    >
      {days.map((iso) => (
        <option key={iso} value={iso}>
          {formatDay(endOfDay(iso) ?? today, lang)}
        </option>
      ))}
    </select>
  );
}
