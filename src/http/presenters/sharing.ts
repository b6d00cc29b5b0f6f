import type { SharingView } from '../../domain/sharing';

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
