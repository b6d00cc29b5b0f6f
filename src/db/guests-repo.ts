import type { Db } from './connection';
import type { Guest, GuestStatus, TrackingError } from '../domain/model';

interface GuestRow {
  id: number;
  user_id: string;
  user_email: string;
  email: string;
  token: string;
  subject: string | null;
  message: string | null;
  options: string;
  transfer_options: string;
  status: string;
  transfer_count: number;
  lang: string | null;
  created: number;
  expires: number | null;
  last_activity: number | null;
  closed: number | null;
}

/** What a new Guest is stored with; the id comes from the table. */
export type NewGuest = Omit<Guest, 'id' | 'status' | 'transferCount' | 'lastActivity' | 'closed' | 'errors'>;

/** The guests table and the Guests' tracking errors (tracking_errors rows with target_type 'Guest'). */
export class GuestsRepo {
  constructor(private readonly db: Db) {}

  insert(g: NewGuest): Guest {
    const r = this.db
      .prepare(
        `INSERT INTO guests (user_id, user_email, email, token, subject, message, options, transfer_options, status, lang, created, expires)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'available', ?, ?, ?)`,
      )
      .run(g.userId, g.userEmail, g.email, g.token, g.subject, g.message, JSON.stringify(g.options), JSON.stringify(g.transferOptions), g.lang, g.created, g.expires);
    return this.find(Number(r.lastInsertRowid))!;
  }

  find(id: number): Guest | undefined {
    const row = this.db.prepare('SELECT * FROM guests WHERE id = ?').get(id) as GuestRow | undefined;
    return row ? this.withErrors([row])[0] : undefined;
  }

  /** The Guest holding this token (guest-token authentication); closed ones too, the caller decides. */
  findByToken(token: string): Guest | undefined {
    const row = this.db.prepare('SELECT * FROM guests WHERE token = ?').get(token) as GuestRow | undefined;
    return row ? this.withErrors([row])[0] : undefined;
  }

  /** Open (not closed) Guests of one user, newest first. */
  listOpenOf(userId: string): Guest[] {
    const rows = this.db.prepare("SELECT * FROM guests WHERE user_id = ? AND status = 'available' ORDER BY id DESC").all(userId) as GuestRow[];
    return this.withErrors(rows);
  }

  /** Every open Guest, newest first (admin view). */
  listOpen(): Guest[] {
    const rows = this.db.prepare("SELECT * FROM guests WHERE status = 'available' ORDER BY id DESC").all() as GuestRow[];
    return this.withErrors(rows);
  }

  /** Open Guests whose expiry has passed (does_not_expire Guests have no expiry and never match). */
  listExpired(now: number): Guest[] {
    const rows = this.db
      .prepare("SELECT * FROM guests WHERE status = 'available' AND expires IS NOT NULL AND expires <= ? ORDER BY id")
      .all(now) as GuestRow[];
    return this.withErrors(rows);
  }

  /** Closes an open Guest; false when it was already closed (so a concurrent closer does not mail twice). */
  close(id: number, now: number): boolean {
    return this.db.prepare("UPDATE guests SET status = 'closed', closed = ? WHERE id = ? AND status = 'available'").run(now, id).changes > 0;
  }

  incrementTransferCount(id: number): void {
    this.db.prepare('UPDATE guests SET transfer_count = transfer_count + 1 WHERE id = ?').run(id);
  }

  countTransfersUsed(guestId: number): number {
    const row = this.db
      .prepare("SELECT COUNT(*) AS n FROM transfers WHERE guest_id = ? AND (status <> 'closed' OR made_available IS NOT NULL)")
      .get(guestId) as { n: number };
    return row.n;
  }

  touch(id: number, now: number): void {
    this.db.prepare('UPDATE guests SET last_activity = ? WHERE id = ?').run(now, id);
  }

  /** Runs fn in one write transaction (so a read-check-write on a Guest cannot interleave with another). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  private withErrors(rows: GuestRow[]): Guest[] {
    if (!rows.length) return [];
    const byGuest = new Map<number, TrackingError[]>();
    const stmt = this.db.prepare("SELECT type, date, details FROM tracking_errors WHERE target_type = 'Guest' AND target_id = ? ORDER BY id");
    for (const row of rows) {
      const errs = (stmt.all(row.id) as { type: string; date: number; details: string }[]).map((e) => ({ type: e.type, date: e.date, details: e.details }));
      byGuest.set(row.id, errs);
    }
    return rows.map((r) => toGuest(r, byGuest.get(r.id) ?? []));
  }
}

function toGuest(r: GuestRow, errors: TrackingError[]): Guest {
  return {
    id: r.id,
    userId: r.user_id,
    userEmail: r.user_email,
    email: r.email,
    token: r.token,
    subject: r.subject,
    message: r.message,
    options: parseList(r.options),
    transferOptions: parseList(r.transfer_options),
    status: r.status as GuestStatus,
    transferCount: r.transfer_count,
    lang: r.lang,
    created: r.created,
    expires: r.expires,
    lastActivity: r.last_activity,
    closed: r.closed,
    errors,
  };
}

function parseList(json: string): string[] {
  const v = JSON.parse(json) as unknown;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
