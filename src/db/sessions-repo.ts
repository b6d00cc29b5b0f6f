import type { Db } from './connection';
import type { Session, SessionStore } from '../auth/sessions';

interface SessionRow {
  id: string;
  user_id: string;
  csrf_token: string;
  created: number;
  last_seen: number;
}

/** Browser sessions of the local service provider; `id` is the SHA-256 of the cookie's token, never the token. */
export class SessionsRepo implements SessionStore {
  constructor(private readonly db: Db) {}

  create(s: Session): void {
    this.db
      .prepare('INSERT INTO sessions (id, user_id, csrf_token, created, last_seen) VALUES (?, ?, ?, ?, ?)')
      .run(s.id, s.userId, s.csrfToken, s.created, s.lastSeen);
  }

  get(id: string): Session | undefined {
    const r = this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined;
    return r && { id: r.id, userId: r.user_id, csrfToken: r.csrf_token, created: r.created, lastSeen: r.last_seen };
  }

  touch(id: string, now: number): void {
    this.db.prepare('UPDATE sessions SET last_seen = ? WHERE id = ?').run(now, id);
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
  }

  deleteOf(userId: string): void {
    this.db.prepare('DELETE FROM sessions WHERE user_id = ?').run(userId);
  }

  deleteStale(idleBefore: number, createdBefore: number): number {
    return this.db.prepare('DELETE FROM sessions WHERE last_seen < ? OR created < ?').run(idleBefore, createdBefore).changes;
  }
}
