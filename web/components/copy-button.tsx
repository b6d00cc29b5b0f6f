import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';

/** Copies a text to the clipboard; says so for screen readers too. */
export function CopyButton({ text, label }: { text: string; label?: string }) {
  const { t } = useApp();
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
      setTimeout(() => setDone(false), 2000);
    } catch {
      setDone(false);
    }
  };
  return (
    <>
      <button type="button" class="copy" onClick={copy} aria-label={label ?? t('ui_copy')}>
        {t('ui_copy')}
      </button>
      <span class="copied" role="status" aria-live="polite">
        {done ? t('ui_copied') : ''}
      </span>
    </>
  );
}
