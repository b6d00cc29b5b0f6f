import path from 'node:path';
import type { StorageFs } from '../../config/stores';
import { WorkerHasher } from '../file-hasher';
import { FsFileStore } from '../fs-store';
import type { StoreFactory } from './kind';

/** Files under data_dir/files, hashed on the hashing threads as they are uploaded. */
export const fsFactory: StoreFactory<StorageFs> = async (_c, deps) =>
  new FsFileStore(path.join(deps.dataDir, 'files'), new WorkerHasher(deps.hashThread));
