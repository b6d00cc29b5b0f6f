import type { Selectable } from 'kysely';
import type { RemoteApp, RemoteAppRepository } from '../domain/ports';
import { affected, runSql, type Db, type RepoContext } from './context';
import type { RemoteAppsTable } from './schema';

/** Remote applications: name, shared secret (HMAC needs it in clear), the previous secret during a grace period. */
export class RemoteAppsRepo implements RemoteAppRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async get(name: string): Promise<RemoteApp | undefined> {
    // Fixed SQL text: read for every signed request, each chunk of an upload (building the query cost more than running it).
    const [r] = await runSql<Selectable<RemoteAppsTable>>(
      this.db,
      this.ctx,
      'SELECT * FROM remote_apps WHERE name = ?',
      [name],
    );
    return r && toApp(r);
  }

  async add(name: string, secret: string, isAdmin: boolean, now: number): Promise<boolean> {
    const rows = await this.db
      .insertInto('remote_apps')
      .values({ name, secret, is_admin: isAdmin ? 1 : 0, created: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .returning('name')
      .execute();
    return rows.length > 0;
  }

  async rotate(name: string, secret: string, oldUntil: number | null): Promise<boolean> {
    const r = await this.db
      .updateTable('remote_apps')
      .set((eb) =>
        oldUntil === null
          ? { old_secret: null, old_secret_until: null, secret }
          : { old_secret: eb.ref('secret'), old_secret_until: oldUntil, secret },
      )
      .where('name', '=', name)
      .execute();
    return affected(r) > 0;
  }

  async list(): Promise<RemoteApp[]> {
    return (await this.db.selectFrom('remote_apps').selectAll().orderBy('name').execute()).map(toApp);
  }

  async remove(name: string): Promise<boolean> {
    return affected(await this.db.deleteFrom('remote_apps').where('name', '=', name).execute()) > 0;
  }
}

function toApp(r: Selectable<RemoteAppsTable>): RemoteApp {
  return {
    name: r.name,
    secret: r.secret,
    oldSecret: r.old_secret,
    oldSecretUntil: r.old_secret_until,
    isAdmin: r.is_admin === 1,
    created: r.created,
  };
}
