import path from 'node:path';
import type { StoreSchema } from './kind';

/** Files under data_dir/files: the default, for one node. */
export interface StorageFs {
  type: 'fs';
}

export const fsStore: StoreSchema<StorageFs> = {
  fields: {},
  required: [],
  defaults: {},
  describe: (_c, dataDir) => path.join(dataDir, 'files'),
};
