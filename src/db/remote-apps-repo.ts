import type { Db } from './connection';
import type { RemoteAppStore } from '../domain/accounts';
import type { RemoteApp } from '../auth/remote';

interface RemoteAppRow {
  name: string;
  secret: string;
  old_secret: string | null;
  old_secret_until: number | null;
  is_admin: number;
  created: number;
}

/** Remote applications: name, shared secret (HMAC needs it in clear), the previous secret during a grace period. */
export class RemoteAppsRepo implements RemoteAppStore {
  constructor(private readonly db: Db) {}

  get(name: string): RemoteApp | undefined {
    const r = this.db.prepare('SELECT * FROM remote_apps WHERE name = ?').get(name) as RemoteAppRow | undefined;
    return r && toApp(r);
  }

  add(name: string, secret: string, isAdmin: boolean, now: number): boolean {
    return this.db.prepare('INSERT OR IGNORE INTO remote_apps (name, secret, is_admin, created) VALUES (?, ?, ?, ?)').run(name, secret, isAdmin ? 1 : 0, now).changes > 0;
  }

  /** The current secret becomes the old one until oldUntil; with null the old one is dropped at once. */
  rotate(name: string, secret: string, oldUntil: number | null): boolean {
    return (
      this.db
        .prepare('UPDATE remote_apps SET old_secret = CASE WHEN ? IS NULL THEN NULL ELSE secret END, old_secret_until = ?, secret = ? WHERE name = ?')
        .run(oldUntil, oldUntil, secret, name).changes > 0
    );
  }

  list(): RemoteApp[] {
    return (this.db.prepare('SELECT * FROM remote_apps ORDER BY name').all() as RemoteAppRow[]).map(toApp);
  }

  remove(name: string): boolean {
    return this.db.prepare('DELETE FROM remote_apps WHERE name = ?').run(name).changes > 0;
  }
}

function toApp(r: RemoteAppRow): RemoteApp {
  return { name: r.name, secret: r.secret, oldSecret: r.old_secret, oldSecretUntil: r.old_secret_until, isAdmin: r.is_admin === 1, created: r.created };
}
