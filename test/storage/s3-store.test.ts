import crypto from 'node:crypto';
import { S3FileStore } from '../../src/storage/s3-store';
import { startS3 } from '../helpers/system/s3';
import { fileStoreContract } from './file-store.contract';

// The storage contract against the S3 store, on a real S3-compatible server (Swift's s3api, test/helpers/system/s3.ts).
// Its part limit is lowered to 3 parts per upload, so that a file of a few chunks takes the path of a file past
// S3's 10,000 parts (segments); files within the limit take the same path as with S3's own.
fileStoreContract('s3', async () => {
  const s3 = await startS3();
  const store = new S3FileStore(
    {
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      region: s3.region,
      prefix: `contract-${crypto.randomBytes(4).toString('hex')}/`,
      forcePathStyle: true,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
    },
    { maxParts: 3 },
  );
  return {
    store,
    async close() {
      await store.close();
      await s3.stop();
    },
  };
});
