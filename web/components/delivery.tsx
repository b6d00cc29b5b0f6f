import { useEffect, useRef } from 'preact/hooks';
import { useApp } from '../lib/context';
import { formatDate } from '../lib/format';
import type { DeliveryJson, RecipientJson } from '../../src/http/presenters/wire';

/** Deferred or bounced: the owner may send it again. */
export function undelivered(d: DeliveryJson | null | undefined): boolean {
  return d?.state === 'deferred' || d?.state === 'bounced';
}

/** What became of the mail to one recipient, with the mail server's answer when it failed (text, escaped by Preact). */
export function DeliveryState({ delivery: d }: { delivery: DeliveryJson | null | undefined }) {
  const { t, lang } = useApp();
  if (!d) return null;
  const label =
    d.state === 'sent' ? t('ui_delivery_sent', { date: formatDate(d.date.raw, lang) }) : t(`ui_delivery_${d.state}`);
  return (
    <span class={`delivery delivery-${d.state}`}>
      {label}
      {undelivered(d) && d.reason && (
        <span class="delivery-reason">{t('ui_delivery_reason', { reason: d.reason })}</span>
      )}
    </span>
  );
}

/** At most this many reloads while mail waits in the queue (2 s apart): the worker usually takes well under a second. */
const MAX_POLLS = 30;

/**
 * Calls reload() every 2 s while some recipient's mail is still queued, so "Mail queued" turns into "Mail
 * sent" (or deferred) without a reload of the page; bounded, and stopped when the view goes away.
 */
export function useDeliveryPolling(recipients: RecipientJson[] | undefined, reload: () => void) {
  const polls = useRef(0);
  const waiting = (recipients ?? []).some((r) => r.delivery?.state === 'queued');
  useEffect(() => {
    if (!waiting || polls.current >= MAX_POLLS) return;
    const timer = setTimeout(() => {
      polls.current++;
      reload();
    }, 2000);
    return () => clearTimeout(timer);
  }, [recipients, waiting]);
}
