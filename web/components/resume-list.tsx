import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { formatBytes } from '../lib/format';
import { errorText } from '../lib/i18n';
import type { PickedFile } from '../upload/picked';
import { sentBytes } from '../../src/shared/resume';
import { matchSources, ResumeRecord } from '../upload/resume-store';
import { MissingFiles, resumeUpload, WrongResumePassword } from '../upload/start';
import type { UploadHandle, UploadOptions } from '../upload/uploader';
import { pageEngine, resumeOwner, resumeStore } from '../upload/use-upload';
import { FilePicker } from './file-picker';

interface Props {
  onResume(u: UploadHandle): void;
  options(): Omit<UploadOptions, 'chunkSize'>;
}

/**
 * Unfinished uploads remembered by this browser. The files cannot be kept across a reload, so the user
 * chooses them again; they are matched by name, size and modification time, and only what the server has
 * not acknowledged is sent.
 */
export function ResumeList({ onResume, options }: Props) {
  const app = useApp();
  const { t } = app;
  const [records, setRecords] = useState(() => resumeStore().list(resumeOwner(app)));
  if (records.length === 0) return null;
  const drop = (r: ResumeRecord) => setRecords((list) => list.filter((x) => x.transferId !== r.transferId));
  return (
    <section class="card resume" aria-labelledby="resume-title">
      <h2 id="resume-title">{t('ui_unfinished_uploads')}</h2>
      {records.map((r) => (
        <ResumeItem key={r.transferId} record={r} onResume={onResume} options={options} onDiscard={() => drop(r)} />
      ))}
    </section>
  );
}

function ResumeItem({ record, onResume, options, onDiscard }: { record: ResumeRecord; onDiscard(): void } & Props) {
  const { api, t, lang } = useApp();
  const [error, setError] = useState<string | null>(null);
  // An encrypted upload needs its password again: the record keeps no password and no key.
  const [password, setPassword] = useState('');
  const sent = record.files.reduce((n, f) => n + sentBytes(f), 0);
  const total = record.files.reduce((n, f) => n + f.size, 0);
  // Every file not completed, even one whose bytes all arrived: the choice is checked against the record.
  const needed = record.files.filter((f) => !f.complete);

  const chosen = async (files: PickedFile[]) => {
    const map = matchSources(record, files);
    // Nothing chosen matches (every file already completed): the choice is still not this upload's.
    const missing = map.size === 0 ? record.files : needed.filter((f) => !map.has(f.fileId));
    if (missing.length) return setError(t('ui_resume_missing', { names: missing.map((f) => f.name).join(', ') }));
    try {
      const decrypt = record.encryption ? { password } : undefined;
      onResume(await resumeUpload(api, record, map, options(), decrypt, pageEngine(api.base)));
      setPassword('');
    } catch (e) {
      if (e instanceof MissingFiles) return setError(t('ui_resume_missing', { names: e.names.join(', ') }));
      setError(e instanceof WrongResumePassword ? t('ui_encrypt_resume_wrong') : errorText(t, e));
    }
  };
  const discard = async () => {
    const key = record.files[0]?.uid;
    await api.request('DELETE', `/transfer/${record.transferId}`, { query: key ? { key } : {} }).catch(() => undefined);
    resumeStore().remove(record.transferId);
    onDiscard();
  };
  return (
    <div class="resume-item">
      <p>
        <strong>{record.subject || t('ui_n_files', { count: record.files.length })}</strong>
        {record.recipients.length > 0 && <> → {record.recipients.join(', ')}</>}
        {' · '}
        {t('ui_progress_figures', { sent: formatBytes(sent, lang), total: formatBytes(total, lang) })}
      </p>
      <p class="hint">{t('ui_resume_hint', { names: needed.map((f) => f.name).join(', ') })}</p>
      {record.encryption && (
        <div class="field">
          <label for={`resume-${record.transferId}-password`}>{t('ui_encrypt_resume_password')}</label>
          <input
            id={`resume-${record.transferId}-password`}
            class="resume-password"
            type="password"
            autocomplete="off"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </div>
      )}
      <div class="row">
        <FilePicker files={[]} onChange={chosen} compact idPrefix={`resume-${record.transferId}`} />
        <button type="button" class="danger" onClick={discard}>
          {t('ui_discard')}
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
