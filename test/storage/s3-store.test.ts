import crypto from 'node:crypto';
import { S3FileStore } from '../../src/storage/s3-store';
import { startS3 } from '../helpers/system/s3';
import { fileStoreContract } from './file-store.contract';

// The storage contract against the S3 store, on a real S3-compatible server (Swift's s3api, test/helpers/system/s3.ts).
fileStoreContract('s3', async () => {
  const s3 = await startS3();
  const store = new S3FileStore({
    endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, prefix: `contract-${crypto.randomBytes(4).toString('hex')}/`,
    forcePathStyle: true, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey,
  });
  return {
    store,
    async close() {
      await store.close();
      await s3.stop();
    },
  };
});
