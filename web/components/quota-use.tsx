import { useApp } from '../lib/context';
import { formatBytes } from '../lib/format';
import { useResource } from '../lib/use-resource';
import { ApiError } from '../lib/api';
import type { Translate } from '../lib/i18n';
import { Errors } from '../../src/domain/errors';

/**
 * "You use 1.2 GB of your 5 GB quota": what counts is every transfer not closed (GET /user/@me/quota).
 * Nothing when there is no quota, unless `always` (the profile says so). `tick` reloads it (after a send).
 */
export function QuotaUse({ always, tick = 0, picked = 0 }: { always?: boolean; tick?: number; picked?: number }) {
  const { api, t, lang, guest } = useApp();
  const q = useResource(
    () => (guest ? Promise.resolve(null) : api.get<{ quota: number; used: number }>('/user/@me/quota')),
    [tick],
  );
  if (!q.data) return null;
  if (q.data.quota <= 0) return always ? <p class="quota-use">{t('ui_quota_mine_none')}</p> : null;
  const left = Math.max(0, q.data.quota - q.data.used);
  return (
    <>
      <p class="quota-use">
        {t('ui_quota_mine', {
          used: formatBytes(q.data.used, lang),
          quota: formatBytes(q.data.quota, lang),
          left: formatBytes(left, lang),
        })}
      </p>
      {/* Said when the files are picked, not only when the server refuses them after "Send". */}
      {picked > left && (
        <p class="quota-over" role="alert">
          {t('ui_quota_picked_over', {
            picked: formatBytes(picked, lang),
            left: formatBytes(left, lang),
            quota: formatBytes(q.data.quota, lang),
          })}
        </p>
      )}
    </>
  );
}

/**
 * A quota refusal of POST /transfer told with its figures (the answer's details: quota=, used=, requested=
 * bytes), e.g. "This transfer (2.0 MB) would pass your quota: 1.0 MB of 1.0 MB left." Null for other errors.
 */
export function quotaRefusal(t: Translate, lang: string, e: unknown, guest: boolean): string | null {
  if (!(e instanceof ApiError) || !/^transfer_(user|host)_quota_exceeded$/.test(e.id)) return null;
  const n = Object.fromEntries((e.details ?? []).map((d) => String(d).split('=')).map(([k, v]) => [k, Number(v)]));
  if (![n.quota, n.used, n.requested].every(Number.isFinite)) return null;
  const vars = {
    requested: formatBytes(n.requested, lang),
    left: formatBytes(Math.max(0, n.quota - n.used), lang),
    quota: formatBytes(n.quota, lang),
  };
  // A guest's transfer counts against the inviter's quota, not a quota of the guest's own.
  if (e.id === Errors.transferHostQuotaExceeded.id) return t('ui_host_quota_refused', vars);
  return t(guest ? 'ui_guest_quota_refused' : 'ui_user_quota_refused', vars);
}
