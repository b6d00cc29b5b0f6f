import type { Config } from '../config/defaults';
import { describeStore } from '../config/stores';
import type { FileStore } from '../domain/ports';
import { openFileStore } from '../storage/kinds';
import { BodyPool } from '../util/body-pool';
import { HashThread } from '../util/hash-thread';

export interface StorageParts {
  files: FileStore;
  /** Uploads' digests, and the HMACs of signed bodies other than chunks, are computed beside the event loop. */
  hashThread: HashThread;
  /** Memory for signed bodies, which are held whole. */
  bodyPool: BodyPool;
  /** The start-up log's line. */
  describe: string;
  close(): Promise<void>;
}

/** The file store of the config's kind (src/storage/kinds/) and the hashing threads beside it. */
export async function composeStorage(config: Config): Promise<StorageParts> {
  const hashThread = new HashThread();
  const files = await openFileStore(config.storage, { dataDir: config.data_dir, hashThread });
  return {
    files,
    hashThread,
    bodyPool: new BodyPool(),
    describe: `files: ${describeStore(config.storage, config.data_dir)}`,
    async close() {
      await files.close();
      await hashThread.close();
    },
  };
}
