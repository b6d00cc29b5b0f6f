import type { SqliteDb } from './sqlite';

/** A file of a snapshot that `ferry backup` may copy: not deleted, its transfer not closed. */
export interface SnapshotFile {
  transfer_id: number;
  uid: string;
  size: number;
  sha256: string | null;
  status: string;
  /** The transfer's end-to-end encryption (JSON), whose chunk size gives the stored size; null when plain. */
  encryption: string | null;
}

/** The files `ferry backup` copies, from the snapshot's rows (never the live database's), in id order. */
export function snapshotFiles(snap: SqliteDb): SnapshotFile[] {
  return snap
    .prepare(
      `SELECT f.transfer_id, f.uid, f.size, f.sha256, t.status, t.encryption FROM files f JOIN transfers t ON t.id = f.transfer_id
       WHERE f.deleted IS NULL AND t.status <> 'closed' ORDER BY f.id`,
    )
    .all() as SnapshotFile[];
}

/** What a backup's manifest counts in its snapshot. */
export function snapshotCounts(snap: SqliteDb): {
  transfers: number;
  available_transfers: number;
  files: number;
  users: number;
} {
  const count = (sql: string) => (snap.prepare(sql).get() as { n: number }).n;
  return {
    transfers: count('SELECT COUNT(*) AS n FROM transfers'),
    available_transfers: count(`SELECT COUNT(*) AS n FROM transfers WHERE status = 'available'`),
    files: count('SELECT COUNT(*) AS n FROM files WHERE deleted IS NULL'),
    users: count('SELECT COUNT(*) AS n FROM users'),
  };
}
