import type { Db } from './connection';

export interface SessionRow {
  id: string;
  user_id: string;
  csrf_token: string;
  created: number;
  last_seen: number;
}

export interface RemoteAppRow {
  name: string;
  secret: string;
  old_secret: string | null;
  old_secret_until: number | null;
  is_admin: number;
  created: number;
}

/** Local accounts, browser sessions, remote applications, user remote secrets and used signatures. */
export class AccountsRepo {
  constructor(private readonly db: Db) {}

  passwordHash(userId: string): string | undefined {
    return (this.db.prepare('SELECT password_hash FROM local_accounts WHERE user_id = ?').get(userId) as { password_hash: string } | undefined)?.password_hash;
  }

  setPassword(userId: string, hash: string, now: number): void {
    this.db
      .prepare(
        `INSERT INTO local_accounts (user_id, password_hash, created, updated) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash, updated = excluded.updated`,
      )
      .run(userId, hash, now, now);
  }

  listAccounts(): { user_id: string; created: number }[] {
    return this.db.prepare('SELECT user_id, created FROM local_accounts ORDER BY user_id').all() as { user_id: string; created: number }[];
  }

  countAccounts(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM local_accounts').get() as { n: number }).n;
  }

  deleteUser(userId: string): boolean {
    return this.db.prepare('DELETE FROM users WHERE id = ?').run(userId).changes > 0;
  }

  createSession(id: string, userId: string, csrf: string, now: number): void {
    this.db.prepare('INSERT INTO sessions (id, user_id, csrf_token, created, last_seen) VALUES (?, ?, ?, ?, ?)').run(id, userId, csrf, now, now);
  }

  session(id: string): SessionRow | undefined {
    return this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined;
  }

  touchSession(id: string, now: number): void {
    this.db.prepare('UPDATE sessions SET last_seen = ? WHERE id = ?').run(now, id);
  }

  deleteSession(id: string): void {
    this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
  }

  deleteSessionsOf(userId: string): void {
    this.db.prepare('DELETE FROM sessions WHERE user_id = ?').run(userId);
  }

  deleteStaleSessions(idleBefore: number, createdBefore: number): number {
    return this.db.prepare('DELETE FROM sessions WHERE last_seen < ? OR created < ?').run(idleBefore, createdBefore).changes;
  }

  remoteApp(name: string): RemoteAppRow | undefined {
    return this.db.prepare('SELECT * FROM remote_apps WHERE name = ?').get(name) as RemoteAppRow | undefined;
  }

  addRemoteApp(name: string, secret: string, isAdmin: boolean, now: number): boolean {
    return this.db.prepare('INSERT OR IGNORE INTO remote_apps (name, secret, is_admin, created) VALUES (?, ?, ?, ?)').run(name, secret, isAdmin ? 1 : 0, now).changes > 0;
  }

  rotateRemoteApp(name: string, secret: string, oldUntil: number | null): boolean {
    return (
      this.db
        .prepare('UPDATE remote_apps SET old_secret = CASE WHEN ? IS NULL THEN NULL ELSE secret END, old_secret_until = ?, secret = ? WHERE name = ?')
        .run(oldUntil, oldUntil, secret, name).changes > 0
    );
  }

  listRemoteApps(): RemoteAppRow[] {
    return this.db.prepare('SELECT * FROM remote_apps ORDER BY name').all() as RemoteAppRow[];
  }

  removeRemoteApp(name: string): boolean {
    return this.db.prepare('DELETE FROM remote_apps WHERE name = ?').run(name).changes > 0;
  }

  remoteSecret(userId: string): string | null {
    return (this.db.prepare('SELECT remote_secret FROM users WHERE id = ?').get(userId) as { remote_secret: string | null } | undefined)?.remote_secret ?? null;
  }

  setRemoteSecret(userId: string, secret: string): void {
    this.db.prepare('UPDATE users SET remote_secret = ? WHERE id = ?').run(secret, userId);
  }

  /** Remembers a signature until it expires; false when it was already used (a replay). */
  useSignature(signature: string, expires: number, now: number): boolean {
    this.db.prepare('DELETE FROM used_signatures WHERE expires < ?').run(now);
    return this.db.prepare('INSERT OR IGNORE INTO used_signatures (signature, expires) VALUES (?, ?)').run(signature, expires).changes > 0;
  }
}
