import { useApp } from '../lib/context';
import { formatBytes } from '../lib/format';
import { useResource } from '../lib/use-resource';

/**
 * "You use 1.2 GB of your 5 GB quota": what counts is every transfer not closed (GET /user/@me/quota).
 * Nothing when there is no quota, unless `always` (the profile says so). `tick` reloads it (after a send).
 */
export function QuotaUse({ always, tick = 0 }: { always?: boolean; tick?: number }) {
  const { api, t, lang, guest } = useApp();
  const q = useResource(() => (guest ? Promise.resolve(null) : api.get<{ quota: number; used: number }>('/user/@me/quota')), [tick]);
  if (!q.data) return null;
  if (q.data.quota <= 0) return always ? <p class="quota-use">{t('ui_quota_mine_none')}</p> : null;
  const left = Math.max(0, q.data.quota - q.data.used);
  return (
    <p class="quota-use">
      {t('ui_quota_mine', { used: formatBytes(q.data.used, lang), quota: formatBytes(q.data.quota, lang), left: formatBytes(left, lang) })}
    </p>
  );
}
