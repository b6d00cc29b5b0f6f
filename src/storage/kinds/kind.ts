import type { FileStore } from '../../domain/ports';
import type { HashThread } from '../../util/hash-thread';

/** What the composition root gives every store's factory. */
export interface StoreDeps {
  dataDir: string;
  /** The hashing threads, for a store that hashes files as they are uploaded. */
  hashThread: HashThread;
}

/**
 * Builds the file store of one kind from its checked `storage` block (docs/architecture.md, "How to add … A
 * store"); the block's keys, checks and defaults are the kind's schema in src/config/stores/.
 */
export type StoreFactory<C> = (config: C, deps: StoreDeps) => Promise<FileStore>;
