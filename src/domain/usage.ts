import { Errors } from './errors';
import type { Clock, FileStore, ListCounts, Repositories } from './ports';

/** The configured limits, read on every use (PUT /config may change them): 0 = none. */
export interface QuotaLimits {
  userQuota: number;
  hostQuota: number;
}

export interface QuotaUse {
  /** Bytes the user may hold in transfers not closed; 0 = no limit. */
  limit: number;
  /** True when an admin set this user's quota (else it is the config's user_quota). */
  own: boolean;
  used: number;
}

export interface UsageOverview {
  /** The last `days` days (UTC), oldest first, every day present. */
  days: { day: string; transfers: number; bytes: number }[];
  /** Senders of those days, most bytes first. */
  topSenders: { userId: string; transfers: number; bytes: number }[];
  /** The daily storage samples of those days (days without a sample are absent). */
  storage: { day: string; bytes: number }[];
}

export const OVERVIEW_DAYS = 30;
const TOP_SENDERS = 10;

/** YYYY-MM-DD of a Unix time, in UTC. */
export function dayOf(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

/**
 * Quotas (config user_quota and host_quota, per-user overrides) and the figures of the admins' overview. What
 * counts is the declared size of the files of every transfer not closed (created, started, uploading,
 * available): a transfer being uploaded holds its full size from the moment it is created, so two uploads
 * started side by side cannot both pass a quota that only one fits.
 */
export class UsageService {
  constructor(private readonly d: { repos: Repositories; files: FileStore; clock: Clock; limits: () => QuotaLimits }) {}

  async quotaOf(userId: string, repos: Repositories = this.d.repos): Promise<QuotaUse> {
    const own = await repos.usage.quotaOf(userId);
    return { limit: own ?? this.d.limits().userQuota, own: own !== null, used: await repos.usage.openBytes(userId) };
  }

  /**
   * Refuses a new transfer of `bytes` for `ownerId` that would pass the user's or the instance's quota (413,
   * details: the limit, what is in use and what was asked). Run inside the unit of work that creates it.
   */
  async checkNewTransfer(repos: Repositories, ownerId: string, bytes: number): Promise<void> {
    const own = await repos.usage.quotaOf(ownerId);
    const userLimit = own ?? this.d.limits().userQuota;
    const hostLimit = this.d.limits().hostQuota;
    // Checks of transfers created at once wait for each other, in a fixed order (the user, then the
    // instance) so that two never wait in a circle; only where a limit applies.
    const keys = [...(userLimit > 0 ? [`user:${ownerId}`] : []), ...(hostLimit > 0 ? ['host'] : [])];
    if (keys.length === 0) return;
    await repos.usage.holdQuota(keys);
    if (userLimit > 0) {
      const used = await repos.usage.openBytes(ownerId);
      if (used + bytes > userLimit)
        throw Errors.transferUserQuotaExceeded(`quota=${userLimit}`, `used=${used}`, `requested=${bytes}`);
    }
    if (hostLimit > 0) {
      const used = await repos.usage.openBytes(null);
      if (used + bytes > hostLimit)
        throw Errors.transferHostQuotaExceeded(`quota=${hostLimit}`, `used=${used}`, `requested=${bytes}`);
    }
  }

  /** An admin sets a user's own quota (bytes, 0 = no limit), or null to fall back on the config's. */
  async setQuota(userId: string, bytes: number | null): Promise<void> {
    if (bytes !== null && (!Number.isSafeInteger(bytes) || bytes < 0)) throw Errors.restBadParameter('quota');
    if (!(await this.d.repos.usage.setQuota(userId, bytes))) throw Errors.userNotFound();
  }

  /**
   * The quota use of these users (a page of the admins' list) as quotaOf() tells it, read in two statements from
   * the running totals (docs/architecture.md, "Usage totals").
   */
  async perUser(userIds: string[]): Promise<(userId: string) => QuotaUse> {
    const quotas = await this.d.repos.usage.quotas();
    const used = await this.d.repos.usage.openBytesOf(userIds);
    const userQuota = this.d.limits().userQuota;
    return (userId) => ({
      limit: quotas.get(userId) ?? userQuota,
      own: quotas.has(userId),
      used: used.get(userId) ?? 0,
    });
  }

  /** The file store's bytes and, where it can tell, its volume's free and total bytes; records the day's sample. */
  async storage(): Promise<{
    used: number;
    free: number | null;
    total: number | null;
    hostQuota: number;
    hostUsed: number;
  }> {
    const used = await this.sampleStorage();
    const space = await this.d.files.space();
    return {
      used,
      free: space?.free ?? null,
      total: space?.total ?? null,
      hostQuota: this.d.limits().hostQuota,
      hostUsed: await this.d.repos.usage.openBytes(null),
    };
  }

  /** Records today's storage sample (one row a day, the last one taken that day wins). Returns the bytes stored. */
  async sampleStorage(): Promise<number> {
    const now = this.d.clock();
    const used = await this.d.files.usedBytes();
    await this.d.repos.usage.recordStorage(dayOf(now), used, now);
    return used;
  }

  /**
   * The admins' overview figures, counted on the database (the page lists transfers, guests and users a page at
   * a time: docs/architecture.md, "Lists and pages"), with the transfers held by the virus scan (its to-do).
   */
  async counts(): Promise<ListCounts & { held: number[] }> {
    const [counts, held] = await Promise.all([
      this.d.repos.usage.counts(this.d.clock()),
      this.d.repos.virusScans.held(),
    ]);
    return { ...counts, held };
  }

  async overview(days = OVERVIEW_DAYS): Promise<UsageOverview> {
    await this.sampleStorage();
    const now = this.d.clock();
    const first = Math.floor(now / 86400) * 86400 - (days - 1) * 86400;
    const perDay = new Map<string, { day: string; transfers: number; bytes: number }>();
    for (let i = 0; i < days; i++) {
      const day = dayOf(first + i * 86400);
      perDay.set(day, { day, transfers: 0, bytes: 0 });
    }
    const senders = new Map<string, { userId: string; transfers: number; bytes: number }>();
    for (const t of await this.d.repos.usage.transfersSince(first)) {
      const d = perDay.get(dayOf(t.created));
      if (d) {
        d.transfers++;
        d.bytes += t.bytes;
      }
      const s = senders.get(t.userId) ?? { userId: t.userId, transfers: 0, bytes: 0 };
      s.transfers++;
      s.bytes += t.bytes;
      senders.set(t.userId, s);
    }
    const topSenders = [...senders.values()]
      .sort((a, b) => b.bytes - a.bytes || b.transfers - a.transfers || a.userId.localeCompare(b.userId))
      .slice(0, TOP_SENDERS);
    return { days: [...perDay.values()], topSenders, storage: await this.d.repos.usage.storageSince(dayOf(first)) };
  }
}
