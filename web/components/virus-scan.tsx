import { useApp } from '../lib/context';
import type { TransferJson } from '../../src/http/presenters/wire';

/**
 * What the virus scan says of a transfer, in its details (docs/sharing.md, Virus scanning): being checked,
 * held (with clamd's error), clean, blocked or flagged (each infected file with the signature clamd named),
 * not scanned, or never scanned because it is end-to-end encrypted. Nothing when scanning is off.
 */
export function VirusScanNote({ transfer }: { transfer: TransferJson }) {
  const { t } = useApp();
  const v = transfer.virus_scan;
  if (!v) return null;
  const names = new Map(transfer.files.map((f) => [f.id, f.name]));
  const text: Record<string, string> = {
    checking: t('ui_virus_checking'),
    held: t('ui_virus_held', { error: v.error ?? '' }),
    clean: t('ui_virus_clean'),
    infected: v.blocked ? t('ui_virus_blocked') : t('ui_virus_flagged'),
    not_scanned: t('ui_virus_not_scanned'),
    encrypted: t('ui_virus_encrypted'),
  };
  const alert = v.status === 'infected' || v.status === 'held';
  return (
    <div class={`virus-scan ${alert ? 'error' : 'notice'}`} role={alert ? 'alert' : 'note'}>
      <p>{text[v.status] ?? v.status}</p>
      {v.files.length > 0 && (
        <ul>
          {v.files.map((f) => (
            <li key={f.file_id}>
              {t('ui_virus_file', { file: names.get(f.file_id) ?? `#${f.file_id}`, signature: f.signature })}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The status column's word for a transfer its virus scan keeps from being available. */
export function virusStatus(transfer: TransferJson): 'virus_checking' | 'virus_held' | 'virus_blocked' | null {
  const v = transfer.virus_scan;
  if (!v || transfer.status === 'available' || transfer.status === 'closed') return null;
  if (v.status === 'checking') return 'virus_checking';
  if (v.status === 'held') return 'virus_held';
  if (v.status === 'infected') return 'virus_blocked';
  return null;
}
