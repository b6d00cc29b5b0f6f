import type { FileRecord, Guest, Recipient, Transfer } from '../../src/domain/model';
import type { ImportedKind, ImportRepository, ReceivedFile } from '../../src/domain/ports';

/** One record an import brought (the databases' `imported_records`). */
export interface ImportedRecord {
  kind: ImportedKind;
  id: number;
  source: string;
  imported: number;
}

/**
 * What the import fake reads and writes of the world (test/fakes/memory-repositories.ts): a view rather than its
 * state type, so this file does not import that one (no import circles, docs/architecture.md).
 */
export interface ImportView {
  next: number;
  transfers: Transfer[];
  files: FileRecord[];
  recipients: Omit<Recipient, 'errors'>[];
  received: { recipientId: number; fileId: number }[];
  guests: Omit<Guest, 'errors'>[];
  imported: ImportedRecord[];
}

const copy = <T>(v: T): T => structuredClone(v);

/**
 * The writes of `ferry import filesender` in memory (src/db/import-repo.ts in the databases): records kept under
 * the ids they had in the source, each marked as imported. test/http/access-repository-contract.test.ts runs the
 * same cases on it as on SQLite and PostgreSQL.
 */
export class MemoryImports implements ImportRepository {
  constructor(private readonly s: () => ImportView) {}

  async otherRecords() {
    const s = this.s();
    const notImported = (kind: ImportedKind, ids: number[]) =>
      ids.filter((id) => !s.imported.some((r) => r.kind === kind && r.id === id)).length;
    return {
      transfers: notImported(
        'transfer',
        s.transfers.map((t) => t.id),
      ),
      guests: notImported(
        'guest',
        s.guests.map((g) => g.id),
      ),
    };
  }

  async imported(kind: ImportedKind) {
    return new Set(
      this.s()
        .imported.filter((r) => r.kind === kind)
        .map((r) => r.id),
    );
  }

  async taken(what: 'transfer' | 'file' | 'recipient' | 'guest', ids: number[]) {
    const s = this.s();
    const rows: { id: number }[] =
      what === 'transfer' ? s.transfers : what === 'file' ? s.files : what === 'recipient' ? s.recipients : s.guests;
    const held = new Set(rows.map((r) => r.id));
    return ids.filter((id) => held.has(id));
  }

  async tokensTaken(what: 'recipient' | 'guest', tokens: string[]) {
    const rows: { token: string }[] = what === 'recipient' ? this.s().recipients : this.s().guests;
    const held = new Set(rows.map((r) => r.token));
    return tokens.filter((t) => held.has(t));
  }

  async uidsTaken(uids: string[]) {
    const held = new Set(this.s().files.map((f) => f.uid));
    return uids.filter((u) => held.has(u));
  }

  async insertGuest(g: Guest, source: string, now: number) {
    const s = this.s();
    // The databases refuse a second row under one id or token (primary key, unique index): so does the fake.
    if (s.guests.some((x) => x.id === g.id || x.token === g.token)) throw new Error(`guest ${g.id} exists`);
    const { errors: _, ...row } = copy(g);
    s.guests.push(row);
    this.mark('guest', g.id, source, now);
  }

  async insertTransfer(t: Transfer, files: FileRecord[], recipients: Recipient[], source: string, now: number) {
    const s = this.s();
    if (s.transfers.some((x) => x.id === t.id)) throw new Error(`transfer ${t.id} exists`);
    if (files.some((f) => s.files.some((x) => x.id === f.id || x.uid === f.uid)))
      throw new Error('a file id or uid exists');
    if (recipients.some((r) => s.recipients.some((x) => x.id === r.id || x.token === r.token)))
      throw new Error('a recipient id or token exists');
    s.transfers.push({ ...copy(t), closed: null, closedReason: null });
    for (const f of files) {
      s.files.push({
        ...copy(f),
        transferId: t.id,
        cid: null,
        received: 0,
        ranges: [],
        complete: false,
        crc32: null,
        sha256: null,
        deleted: null,
        storeUpload: null,
      });
    }
    for (const r of recipients) {
      const { errors: _, ...row } = copy(r);
      s.recipients.push({ ...row, transferId: t.id, deleted: null });
    }
    this.mark('transfer', t.id, source, now);
  }

  async recordReceived(rows: ReceivedFile[]) {
    const s = this.s();
    for (const r of rows) {
      if (!s.received.some((x) => x.recipientId === r.recipientId && x.fileId === r.fileId))
        s.received.push({ recipientId: r.recipientId, fileId: r.fileId });
    }
  }

  async setImportedStatus(id: number, status: Transfer['status'], madeAvailable: number | null) {
    const t = this.s().transfers.find((x) => x.id === id);
    if (t) Object.assign(t, { status, madeAvailable });
  }

  async moveSequences(floor: { transfers: number; files: number; recipients: number; guests: number }) {
    // One counter numbers every record here: it moves past every id held and every floor.
    const s = this.s();
    const ids = [s.transfers, s.files, s.recipients, s.guests].flatMap((rows) => rows.map((r) => r.id));
    s.next = Math.max(s.next, ...ids.map((id) => id + 1), ...Object.values(floor).map((f) => f + 1));
  }

  private mark(kind: ImportedKind, id: number, source: string, now: number) {
    const s = this.s();
    if (!s.imported.some((r) => r.kind === kind && r.id === id)) s.imported.push({ kind, id, source, imported: now });
  }
}
