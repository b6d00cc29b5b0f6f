import type { StorageS3 } from '../../config/stores';
import type { StoreFactory } from './kind';

/**
 * The S3 adapter is loaded only when configured: evaluating the AWS SDK's modules costs every process ~25 MB of
 * memory and start-up time, which a node on the filesystem store (and every CLI command) would pay for nothing.
 */
export const s3Factory: StoreFactory<StorageS3> = async (s) => {
  const { S3FileStore } = await import('../s3-store');
  return new S3FileStore(
    {
      endpoint: s.endpoint,
      bucket: s.bucket,
      region: s.region,
      prefix: s.prefix,
      forcePathStyle: s.force_path_style,
      accessKeyId: s.access_key_id ?? '',
      secretAccessKey: s.secret_access_key ?? '',
    },
    { maxParts: s.max_parts },
  );
};
