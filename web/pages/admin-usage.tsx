import { useApp } from '../lib/context';
import { formatBytes, formatCount, formatDay } from '../lib/format';
import { errorText } from '../lib/i18n';
import { useResource } from '../lib/use-resource';
import { BarChart } from '../components/bar-chart';

interface Storage {
  used: number;
  free: number | null;
  total: number | null;
  host_quota: number;
  host_used: number;
}
interface Usage {
  days: { day: string; transfers: number; bytes: number }[];
  top_senders: { user_id: string; transfers: number; bytes: number }[];
  storage: { day: string; bytes: number }[];
}

/** A YYYY-MM-DD day (UTC) in the page's one date format. */
function dayLabel(day: string, lang: string): string {
  return formatDay(Date.parse(`${day}T12:00:00Z`) / 1000, lang);
}

/** Admin overview: storage used and free, and the last 30 days in charts (GET /storage, GET /usage). */
export function UsageOverview() {
  const { api, t, lang } = useApp();
  const storage = useResource(() => api.get<Storage>('/storage'));
  const usage = useResource(() => api.get<Usage>('/usage'));
  const error = storage.error ?? usage.error;
  if (error)
    return (
      <p class="error" role="alert">
        {errorText(t, error)}
      </p>
    );
  if (!storage.data || !usage.data) return <p aria-busy="true">{t('ui_loading')}</p>;
  const st = storage.data;
  const u = usage.data;
  const bytes = (v: number) => formatBytes(v, lang);
  const count = (v: number) => formatCount(v, lang);
  // One sample a day, on the same 30-day axis as the other charts; a day without one has no bar.
  const samples = new Map(u.storage.map((d) => [d.day, d.bytes]));
  return (
    <>
      <h2 id="storage-title">{t('ui_storage')}</h2>
      <dl class="facts storage" aria-labelledby="storage-title">
        <dt>{t('ui_storage_used')}</dt>
        <dd class="storage-used">{bytes(st.used)}</dd>
        <dt>{t('ui_storage_free')}</dt>
        <dd class="storage-free">
          {st.free === null ? '—' : t('ui_storage_free_of', { free: bytes(st.free), total: bytes(st.total ?? 0) })}
          {/* The disk's fill, in the row it belongs to (under the instance quota it read as the quota's use). */}
          {st.total ? (
            <meter
              class="meter"
              min={0}
              max={st.total}
              value={st.total - (st.free ?? 0)}
              aria-label={t('ui_disk_filled')}
              title={t('ui_disk_filled')}
            />
          ) : null}
        </dd>
        <dt>{t('ui_host_quota')}</dt>
        <dd class="host-quota">
          {st.host_quota > 0
            ? t('ui_quota_use', { used: bytes(st.host_used), quota: bytes(st.host_quota) })
            : t('ui_quota_none')}
        </dd>
      </dl>
      <h2>{t('ui_usage_30_days')}</h2>
      <div class="charts">
        <BarChart
          id="chart-transfers"
          title={t('ui_chart_transfers')}
          bars={u.days.map((d) => ({ label: dayLabel(d.day, lang), value: d.transfers }))}
          format={count}
          labelHeading={t('ui_day')}
          valueHeading={t('ui_transfer_count')}
        />
        <BarChart
          id="chart-bytes"
          title={t('ui_chart_bytes')}
          bars={u.days.map((d) => ({ label: dayLabel(d.day, lang), value: d.bytes }))}
          format={bytes}
          labelHeading={t('ui_day')}
          valueHeading={t('size')}
        />
        <BarChart
          id="chart-storage"
          title={t('ui_chart_storage')}
          bars={u.days.map((d) => ({ label: dayLabel(d.day, lang), value: samples.get(d.day) ?? null }))}
          format={bytes}
          labelHeading={t('ui_day')}
          valueHeading={t('ui_storage_used')}
        />
        <BarChart
          id="chart-senders"
          title={t('ui_chart_top_senders')}
          horizontal
          showTable
          bars={u.top_senders.map((s) => ({ label: s.user_id, value: s.bytes }))}
          format={bytes}
          labelHeading={t('user_id')}
          valueHeading={t('size')}
        />
      </div>
    </>
  );
}
