import type { Repositories } from './repositories';

/** The repositories of one unit of work: every change made through them commits together, or none does. */
export interface Tx extends Repositories {
  /** Runs fn once the unit of work has committed (never when it rolls back): e.g. waking the mail worker. */
  afterCommit(fn: () => void): void;
}

/**
 * Transactions as async units of work: `await uow.run(async (tx) => …)`. Everything done through `tx`
 * commits when fn resolves and is rolled back when it throws, on SQLite (one writer at a time, the write lock
 * taken up front) and on PostgreSQL (one pooled connection per unit of work) alike. Mail queued through
 * `tx.mailQueue` commits with the change it reports. Inside fn, use only `tx`: the root repositories would
 * run outside the transaction (and on SQLite wait for it to end).
 */
export interface UnitOfWork {
  run<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

/** A named lock across processes and nodes (the purge pass): at most one holder at a time. */
export interface Locks {
  /** Takes the lock, or returns null when another process or node holds it. The release may be called once. */
  tryLock(name: string): Promise<(() => Promise<void>) | null>;
}
