import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { useApp } from '../lib/context';
import { errorText } from '../lib/i18n';

interface Props {
  run(): Promise<unknown>;
  children: ComponentChildren;
  confirm?: string;
  danger?: boolean;
  label?: string;
  /** Said (role=status) after success; a function gets what run() returned. */
  done?: string | ((result: unknown) => string);
  onDone?(): void;
}

/** A button for one REST call: disabled while it runs, says what happened, errors included. */
export function ActionButton({ run, children, confirm: ask, danger, label, done, onDone }: Props) {
  const { t } = useApp();
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const click = async () => {
    if (ask && !confirm(ask)) return;
    setBusy(true);
    setNote(null);
    try {
      const result = await run();
      if (done) setNote({ ok: true, text: typeof done === 'function' ? done(result) : done });
      onDone?.();
    } catch (e) {
      setNote({ ok: false, text: errorText(t, e) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      <button type="button" class={danger ? 'danger' : undefined} disabled={busy} aria-label={label} onClick={click}>
        {children}
      </button>
      {note && (
        <span class={note.ok ? 'ok' : 'error'} role={note.ok ? 'status' : 'alert'}>
          {note.text}
        </span>
      )}
    </span>
  );
}
