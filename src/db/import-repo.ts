import { sql } from 'kysely';
import type { FileRecord, Guest, Recipient, Transfer } from '../domain/model';
import type { ImportedKind, ImportRepository, ReceivedFile } from '../domain/ports';
import { type Db, type RepoContext, slices } from './context';

const TABLE_OF = { transfer: 'transfers', file: 'files', recipient: 'recipients', guest: 'guests' } as const;

/**
 * The writes of `ferry import filesender` (docs/moving-from-filesender.md): rows inserted under the ids they had
 * in FileSender, and `imported_records`, which says which transfers and guests an import brought.
 */
export class ImportRepo implements ImportRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async otherRecords(): Promise<{ transfers: number; guests: number }> {
    const count = async (table: 'transfers' | 'guests', kind: ImportedKind) => {
      const r = await this.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('id', 'not in', this.db.selectFrom('imported_records').select('id').where('kind', '=', kind))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    };
    return { transfers: await count('transfers', 'transfer'), guests: await count('guests', 'guest') };
  }

  async imported(kind: ImportedKind): Promise<Set<number>> {
    const found = await this.db.selectFrom('imported_records').select('id').where('kind', '=', kind).execute();
    return new Set(found.map((r) => Number(r.id)));
  }

  async taken(what: 'transfer' | 'file' | 'recipient' | 'guest', ids: number[]): Promise<number[]> {
    const out: number[] = [];
    for (const part of slices(ids)) {
      const found = await this.db.selectFrom(TABLE_OF[what]).select('id').where('id', 'in', part).execute();
      out.push(...found.map((r) => Number(r.id)));
    }
    return out;
  }

  async tokensTaken(what: 'recipient' | 'guest', tokens: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const part of slices(tokens)) {
      const found = await this.db.selectFrom(TABLE_OF[what]).select('token').where('token', 'in', part).execute();
      out.push(...found.map((r) => r.token));
    }
    return out;
  }

  async uidsTaken(uids: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const part of slices(uids)) {
      const found = await this.db.selectFrom('files').select('uid').where('uid', 'in', part).execute();
      out.push(...found.map((r) => r.uid));
    }
    return out;
  }

  async insertGuest(g: Guest, source: string, now: number): Promise<void> {
    await this.db
      .insertInto('guests')
      .values({
        id: g.id,
        user_id: g.userId,
        user_email: g.userEmail,
        email: g.email,
        token: g.token,
        subject: g.subject,
        message: g.message,
        options: JSON.stringify(g.options),
        transfer_options: JSON.stringify(g.transferOptions),
        status: g.status,
        transfer_count: g.transferCount,
        lang: g.lang,
        created: g.created,
        expires: g.expires,
        last_activity: g.lastActivity,
        closed: g.closed,
      })
      .execute();
    await this.mark('guest', g.id, source, now);
  }

  async insertTransfer(
    t: Transfer,
    files: FileRecord[],
    recipients: Recipient[],
    source: string,
    now: number,
  ): Promise<void> {
    await this.db
      .insertInto('transfers')
      .values({
        id: t.id,
        user_id: t.userId,
        user_email: t.userEmail,
        guest_id: t.guestId,
        subject: t.subject,
        message: t.message,
        options: JSON.stringify(t.options),
        status: t.status,
        lang: t.lang,
        created: t.created,
        expires: t.expires,
        expiry_extensions_used: t.expiryExtensionsUsed,
        made_available: t.madeAvailable,
        closed: null,
        closed_reason: null,
        roundtrip_token: t.roundtripToken,
        encryption: t.encryption ? JSON.stringify(t.encryption) : null,
      })
      .execute();
    for (const part of slices(files, 100)) {
      await this.db
        .insertInto('files')
        .values(
          part.map((f) => ({
            id: f.id,
            transfer_id: t.id,
            uid: f.uid,
            name: f.name,
            size: f.size,
            mime_type: f.mimeType,
            cid: null,
            created: f.created,
            iv: f.iv,
            aead: f.aead,
          })),
        )
        .execute();
    }
    for (const part of slices(recipients, 100)) {
      await this.db
        .insertInto('recipients')
        .values(
          part.map((r) => ({
            id: r.id,
            transfer_id: t.id,
            email: r.email,
            token: r.token,
            lang: r.lang,
            created: r.created,
            last_activity: r.lastActivity,
          })),
        )
        .execute();
    }
    await this.mark('transfer', t.id, source, now);
  }

  async recordReceived(rows: ReceivedFile[]): Promise<void> {
    for (const part of slices(rows, 100)) {
      await this.db
        .insertInto('recipient_downloads')
        .values(part.map((r) => ({ recipient_id: r.recipientId, file_id: r.fileId, date: r.date })))
        .onConflict((oc) => oc.columns(['recipient_id', 'file_id']).doNothing())
        .execute();
    }
  }

  async setImportedStatus(id: number, status: Transfer['status'], madeAvailable: number | null): Promise<void> {
    await this.db
      .updateTable('transfers')
      .set({ status, made_available: madeAvailable })
      .where('id', '=', id)
      .execute();
  }

  async moveSequences(floor: { transfers: number; files: number; recipients: number; guests: number }): Promise<void> {
    for (const table of ['transfers', 'files', 'recipients', 'guests'] as const) {
      const r = await this.db
        .selectFrom(table)
        .select((eb) => eb.fn.max('id').as('m'))
        .executeTakeFirst();
      const next = Math.max(Number(r?.m ?? 0), floor[table]) + 1;
      if (this.ctx.dialect === 'postgres') {
        await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), GREATEST(${next}, nextval(pg_get_serial_sequence(${table}, 'id'))), false)`.execute(
          this.db,
        );
      } else {
        // SQLite's AUTOINCREMENT numbers past `seq` (its row appears with the table's first row).
        const seq = next - 1;
        const has = await sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = ${table}`.execute(this.db);
        if (has.rows.length)
          await sql`UPDATE sqlite_sequence SET seq = MAX(seq, ${seq}) WHERE name = ${table}`.execute(this.db);
        else await sql`INSERT INTO sqlite_sequence (name, seq) VALUES (${table}, ${seq})`.execute(this.db);
      }
    }
  }

  private async mark(kind: ImportedKind, id: number, source: string, now: number): Promise<void> {
    await this.db
      .insertInto('imported_records')
      .values({ kind, id, source, imported: now })
      .onConflict((oc) => oc.columns(['kind', 'id']).doNothing())
      .execute();
  }
}
