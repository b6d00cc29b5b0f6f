import { useEffect, useRef } from 'preact/hooks';
import { useApp } from '../lib/context';
import { CopyButton } from './copy-button';

/**
 * A password shown once, in a modal dialog with a copy button. The page keeps it only while the dialog is
 * open: closing it hands control back and the caller forgets it.
 */
export function SecretDialog({
  title,
  note,
  secret,
  onClose,
}: {
  title: string;
  note: string;
  secret: string;
  onClose(): void;
}) {
  const { t } = useApp();
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog ref={ref} class="secret" aria-labelledby="secret-title" onClose={onClose}>
      <h2 id="secret-title">{title}</h2>
      <p>{note}</p>
      <div class="row">
        <label for="secret-value" class="visually-hidden">
          {title}
        </label>
        <input id="secret-value" class="mono" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={secret} label={t('ui_copy_password')} />
      </div>
      <p>
        <button type="button" onClick={() => ref.current?.close()}>
          {t('ui_close')}
        </button>
      </p>
    </dialog>
  );
}
