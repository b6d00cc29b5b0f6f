import { useApp } from '../lib/context';
import { formatDate } from '../lib/format';
import { errorText, Translate } from '../lib/i18n';
import type { AuditEntryJson } from '../../src/http/presenters/wire';

/**
 * The audit log as sentences in the page's language ("anna@example.org downloaded report.pdf."): the API
 * gives event ids and targets, which mean nothing to most readers. An event this page does not know yet
 * still shows, with its id.
 */
export function auditSentence(t: Translate, e: AuditEntryJson): string {
  const who = e.author.email || (e.author.type === 'Recipient' ? t('audit_link_visitor') : t('audit_someone'));
  const key =
    e.event === 'transfer_reminded' && e.target.type === 'Recipient'
      ? 'audit_transfer_reminded_recipient'
      : t.known(`audit_${e.event}`);
  const vars = {
    who,
    file: e.target.name ?? '',
    email: e.target.email || t('ui_link_anyone'),
    event: e.event,
    detail: e.detail ?? '',
  };
  return t(key ?? 'audit_other', vars);
}

export function AuditLog({ entries, error }: { entries: AuditEntryJson[] | null; error: unknown }) {
  const { t, lang } = useApp();
  if (error) return <p class="error">{errorText(t, error)}</p>;
  if (!entries) return <p aria-busy="true">{t('ui_loading')}</p>;
  if (entries.length === 0) return <p>{t('ui_auditlog_empty')}</p>;
  return (
    <div class="table-wrap">
      <table class="list audit">
        <thead>
          <tr>
            <th scope="col">{t('ui_date')}</th>
            <th scope="col">{t('ui_event')}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e, i) => (
            <tr key={i}>
              <td data-label={t('ui_date')} class="when">
                {formatDate(e.date.raw, lang)}
              </td>
              <td data-label={t('ui_event')}>{auditSentence(t, e)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Downloads as people count them: a finished download of one file or of the archive, not its start. */
export function countDownloads(entries: AuditEntryJson[] | null): number {
  return (entries ?? []).filter((e) => e.event === 'download_ended' || e.event === 'archive_download_ended').length;
}
