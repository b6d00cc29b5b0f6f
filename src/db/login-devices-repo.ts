import type { LoginDeviceRepository } from '../domain/ports';
import type { Db, RepoContext } from './context';
import { firstRow } from './context';

/** Browsers that signed in to an account before (docs/hardening.md, "Login throttle"). */
export class LoginDevicesRepo implements LoginDeviceRepository {
  constructor(
    private readonly db: Db,
    private readonly ctx: RepoContext,
  ) {}

  async known(deviceId: string, userId: string): Promise<boolean> {
    return (
      (await firstRow(
        this.db,
        this.ctx,
        this.db.selectFrom('login_devices').select('id').where('id', '=', deviceId).where('user_id', '=', userId),
      )) !== undefined
    );
  }

  async remember(deviceId: string, userId: string, now: number): Promise<void> {
    await this.db
      .insertInto('login_devices')
      .values({ id: deviceId, user_id: userId, created: now, last_used: now })
      .onConflict((oc) => oc.columns(['id', 'user_id']).doUpdateSet({ last_used: now }))
      .execute();
  }
}
