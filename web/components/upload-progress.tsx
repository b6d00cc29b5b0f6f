import { useEffect, useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import { formatBytes, formatEta } from '../lib/format';
import { errorText } from '../lib/i18n';
import type { UploadHandle, UploadProgress } from '../upload/uploader';

interface Props {
  upload: UploadHandle;
  progress: UploadProgress;
  onCancel(): void;
}

/** Total and per-file bars with speed and time left, the state in words, and pause/resume/cancel. */
export function UploadProgressView({ upload, progress: p, onCancel }: Props) {
  const { t, lang } = useApp();
  // While waiting, a tick redraws the countdown; the time is read at each drawing, never kept from an earlier
  // wait (a stale one made "Trying again in 9 s" jump to 2 s).
  const [, setTick] = useState(0);
  useEffect(() => {
    if (p.phase !== 'waiting') return;
    const timer = setInterval(() => setTick((n) => n + 1), 250);
    return () => clearInterval(timer);
  }, [p.phase, p.retryAt]);
  const now = Date.now();

  const pct = p.total > 0 ? Math.floor((p.sent / p.total) * 100) : 100;
  let status: string;
  switch (p.phase) {
    case 'waiting':
      // Offline: no countdown (each failed try would start a longer one); the browser's `online` event resumes.
      status =
        navigator.onLine === false
          ? t('ui_upload_offline')
          : t('ui_upload_waiting', { seconds: Math.max(0, Math.ceil(((p.retryAt ?? now) - now) / 1000)) });
      break;
    case 'paused':
      status = t('ui_upload_paused');
      break;
    case 'failed':
      status = t('ui_upload_failed', { reason: errorText(t, p.error) });
      break;
    case 'finishing':
      status = t('ui_upload_finishing');
      break;
    case 'done':
      status = t('ui_upload_done');
      break;
    default:
      status = t('ui_upload_running');
  }
  const paused = p.phase === 'paused' || p.phase === 'failed';
  return (
    <section class="card upload-progress" aria-labelledby="progress-title">
      <h2 id="progress-title">{t('ui_uploading')}</h2>
      <div class="bar-line">
        <label for="progress-total">{t('ui_total')}</label>
        <progress id="progress-total" max={100} value={pct}>
          {pct}%
        </progress>
        <span class="pct">{pct}%</span>
      </div>
      <p class="figures">
        {t('ui_progress_figures', { sent: formatBytes(p.sent, lang), total: formatBytes(p.total, lang) })}
        {p.phase === 'uploading' &&
          (p.speed > 0 ? (
            <>
              {' · '}
              <span class="speed">{formatBytes(p.speed, lang)}/s</span>
              {p.eta !== null && (
                <>
                  {' · '}
                  <span class="eta">{t('ui_time_left', { time: formatEta(p.eta) })}</span>
                </>
              )}
            </>
          ) : (
            <>
              {' · '}
              <span class="speed measuring">{t('ui_speed_measuring')}</span>
            </>
          ))}
      </p>
      <p
        class={`status phase-${p.phase}`}
        role="status"
        aria-live="polite"
        data-retry-at={p.phase === 'waiting' && p.retryAt !== null ? String(p.retryAt) : undefined}
      >
        {status}
      </p>
      <ul class="file-progress">
        {p.files.map((f, i) => {
          const fp = f.size > 0 ? Math.floor((f.sent / f.size) * 100) : f.complete ? 100 : 0;
          return (
            <li key={f.fileId}>
              <label for={`progress-file-${i}`} class="name">
                {f.name}
              </label>
              <progress id={`progress-file-${i}`} max={100} value={fp}>
                {fp}%
              </progress>
              <span class="size">
                {formatBytes(f.sent, lang)} / {formatBytes(f.size, lang)}
              </span>
            </li>
          );
        })}
      </ul>
      {p.phase !== 'done' && p.phase !== 'finishing' && (
        <div class="actions">
          {paused ? (
            <button type="button" class="primary" onClick={() => upload.resume()}>
              {p.phase === 'failed' ? t('ui_retry') : t('ui_resume')}
            </button>
          ) : (
            <button type="button" onClick={() => upload.pause()}>
              {t('ui_pause')}
            </button>
          )}
          <button type="button" class="danger" onClick={onCancel}>
            {t('ui_cancel_upload')}
          </button>
        </div>
      )}
    </section>
  );
}
