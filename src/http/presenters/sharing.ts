import type { SharingView } from '../../domain/sharing';
import type { Transfer } from '../../domain/model';
import type { VirusScanRecord } from '../../domain/ports';

/**
 * A Transfer's sharing controls as extension fields (docs/sharing.md): `download_limit` (null: none),
 * `password` (whether the links ask for one; never the password nor its hash), and `download_counts`, the
 * completed downloads per recipient and file.
 */
export function presentSharing(v: SharingView) {
  return {
    download_limit: v.controls.downloadLimit,
    password: v.controls.passwordHash !== null,
    download_counts: v.counts.map((c) => ({ recipient_id: c.recipientId, file_id: c.fileId, downloads: c.done })),
  };
}

/**
 * A Transfer's virus scan as the extension field `virus_scan` (docs/sharing.md, Virus scanning): null when
 * scanning is off and none was made; else its status (checking, held, clean, infected, not_scanned, or
 * encrypted: never scanned), whether infected files blocked it, why a scan failed, and each infected file's
 * signature.
 */
export function presentVirusScan(t: Transfer, scan: VirusScanRecord | undefined, scanning: boolean) {
  if (!scan)
    return {
      virus_scan:
        scanning && t.encryption !== null ? { status: 'encrypted', blocked: false, error: null, files: [] } : null,
    };
  return {
    virus_scan: {
      status: scan.state,
      blocked: scan.state === 'infected' && t.status !== 'available',
      error: scan.error,
      files: scan.findings.map((f) => ({ file_id: f.fileId, signature: f.signature })),
    },
  };
}
