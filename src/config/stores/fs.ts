import path from 'node:path';
import { z } from 'zod';
import { zObject } from '../zod-checks';
import type { StoreSchema } from './kind';

const schema = zObject({ type: z.literal('fs') });
/** Files under data_dir/files: the default, for one node. */
export type StorageFs = z.output<typeof schema>;

export const fsStore: StoreSchema<typeof schema> = {
  schema,
  describe: (_c, dataDir) => path.join(dataDir, 'files'),
};
