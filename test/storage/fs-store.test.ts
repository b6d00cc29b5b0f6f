import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FsFileStore } from '../../src/storage/fs-store';
import { fileStoreContract } from './file-store.contract';

// The storage contract against the filesystem store (data_dir/files).
fileStoreContract('fs', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-contract-'));
  const store = new FsFileStore(root);
  return {
    store,
    async close() {
      await store.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
});
