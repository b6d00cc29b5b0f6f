import type { Actor, AuditEntry, FileRecord, Recipient, Transfer } from './model';

/** The fixed set of audit event types ferry records. */
export const AUDIT_EVENTS = [
  'transfer_started',
  'transfer_available',
  'transfer_sent',
  'transfer_closed',
  'transfer_expired',
  'transfer_deleted',
  'transfer_reminded',
  'transfer_expiry_extended',
  // docs/moving-from-filesender.md: one entry per transfer `ferry import filesender` brought over
  'transfer_imported',
  'upload_started',
  'upload_ended',
  'file_uploaded',
  'file_deleted',
  'recipient_added',
  'recipient_removed',
  'download_started',
  'download_ended',
  'archive_download_started',
  'archive_download_ended',
  'download_limit_changed',
  'download_refused',
  'transfer_automatic_reminder',
  // docs/sharing.md, Virus scanning (virus_found's detail: the signature clamd named)
  'virus_scan_clean',
  'virus_found',
  'virus_scan_held',
  'virus_scan_failed',
  'virus_scan_skipped',
] as const;

export function auditAuthor(a: Actor): AuditEntry['author'] {
  const type = a.type === 'guest' ? 'Guest' : 'User';
  return { type, id: a.id, ip: a.ip, email: a.emails[0] ?? null };
}

export function transferTarget(t: Transfer): AuditEntry['target'] {
  return { type: 'Transfer', id: String(t.id) };
}

export function fileTarget(f: FileRecord): AuditEntry['target'] {
  return { type: 'File', id: String(f.id), name: f.name, size: f.size };
}

export function recipientTarget(r: Recipient): AuditEntry['target'] {
  return { type: 'Recipient', id: String(r.id), email: r.email };
}
