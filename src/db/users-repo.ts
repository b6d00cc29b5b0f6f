import type { Db } from './connection';
import type { UserRecord, UserStore } from '../domain/users';

export interface UserRow {
  id: string;
  lang: string | null;
  aup_ticked: number;
  transfer_preferences: string;
  guest_preferences: string;
  additional_attributes: string;
  remote_secret: string | null;
  created: number;
  last_activity: number | null;
}

/** How long a user's stored e-mails are taken as known without reading them again (another process may change them). */
const SEEN_MS = 1000;
const SEEN_MAX = 10_000;

/** Users, their e-mail addresses and the admins table. */
export class UsersRepo implements UserStore {
  /** Users seen in the last second, as stored: most requests of a busy user then read nothing here. */
  private readonly recent = new Map<string, { at: number; lastActivity: number; emails: string[] }>();

  constructor(private readonly db: Db) {}

  find(id: string): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
  }

  record(id: string): UserRecord | undefined {
    const r = this.find(id);
    if (!r) return undefined;
    return {
      id: r.id,
      lang: r.lang,
      aupTicked: r.aup_ticked === 1,
      transferPreferences: jsonOr(r.transfer_preferences, []),
      guestPreferences: jsonOr(r.guest_preferences, []),
      additionalAttributes: jsonOr(r.additional_attributes, {}),
      created: r.created,
      lastActivity: r.last_activity,
    };
  }

  emails(id: string): string[] {
    return (this.db.prepare('SELECT email FROM user_emails WHERE user_id = ? ORDER BY position').all(id) as { email: string }[]).map(
      (r) => r.email,
    );
  }

  /**
   * Creates the user on first sight; when emails are given they replace the stored list (the IdP is the
   * source). Returns the stored e-mails. Most requests change nothing: they are answered without a write.
   */
  upsertSeen(id: string, emails: string[], now: number): string[] {
    const wall = Date.now();
    const hit = this.recent.get(id);
    if (hit && wall - hit.at < SEEN_MS && hit.lastActivity >= now - 60 && (!emails.length || sameList(hit.emails, uniqueLower(emails)))) {
      return hit.emails;
    }
    const stored = this.refreshSeen(id, emails, now);
    if (this.recent.size >= SEEN_MAX) this.recent.clear();
    this.recent.set(id, { at: wall, lastActivity: now, emails: stored });
    return stored;
  }

  private refreshSeen(id: string, emails: string[], now: number): string[] {
    const row = this.find(id);
    const stored = row ? this.emails(id) : [];
    const wanted = uniqueLower(emails);
    // Activity is kept to the minute: a write on every request would serialise readers behind the WAL lock.
    const fresh = row !== undefined && (row.last_activity ?? 0) >= now - 60;
    const sameEmails = !emails.length || sameList(stored, wanted);
    if (fresh && sameEmails) return stored;
    this.db.transaction(() => {
      const current = this.find(id);
      if (!current) this.db.prepare('INSERT INTO users (id, created, last_activity) VALUES (?, ?, ?)').run(id, now, now);
      else if ((current.last_activity ?? 0) < now - 60) this.db.prepare('UPDATE users SET last_activity = ? WHERE id = ?').run(now, id);
      if (emails.length) this.setEmails(id, emails);
    })();
    return this.emails(id);
  }

  setEmails(id: string, emails: string[]): void {
    this.recent.delete(id);
    const unique = uniqueLower(emails);
    if (sameList(this.emails(id), unique)) return;
    this.db.prepare('DELETE FROM user_emails WHERE user_id = ?').run(id);
    const ins = this.db.prepare('INSERT INTO user_emails (user_id, email, position) VALUES (?, ?, ?)');
    unique.forEach((e, i) => ins.run(id, e, i));
  }

  listIds(): string[] {
    return (this.db.prepare('SELECT id FROM users ORDER BY id').all() as { id: string }[]).map((r) => r.id);
  }

  setLang(id: string, lang: string | null): void {
    this.db.prepare('UPDATE users SET lang = ? WHERE id = ?').run(lang, id);
  }

  remoteSecret(id: string): string | null {
    const r = this.db.prepare('SELECT remote_secret FROM users WHERE id = ?').get(id) as { remote_secret: string | null } | undefined;
    return r?.remote_secret ?? null;
  }

  setRemoteSecret(id: string, secret: string | null): void {
    this.db.prepare('UPDATE users SET remote_secret = ? WHERE id = ?').run(secret, id);
  }

  isDbAdmin(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM admins WHERE user_id = ?').get(id) !== undefined;
  }

  addAdmin(id: string, now: number): boolean {
    return this.db.prepare('INSERT OR IGNORE INTO admins (user_id, created) VALUES (?, ?)').run(id, now).changes > 0;
  }

  removeAdmin(id: string): boolean {
    return this.db.prepare('DELETE FROM admins WHERE user_id = ?').run(id).changes > 0;
  }

  listAdmins(): string[] {
    return (this.db.prepare('SELECT user_id FROM admins ORDER BY user_id').all() as { user_id: string }[]).map((r) => r.user_id);
  }
}

function jsonOr<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function uniqueLower(emails: string[]): string[] {
  return [...new Set(emails.map((e) => e.toLowerCase()))];
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((e, i) => e === b[i]);
}
