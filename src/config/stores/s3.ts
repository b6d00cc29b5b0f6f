import { z } from 'zod';
import { zBool, zInt, zObject, zStr } from '../zod-checks';
import type { StoreSchema } from './kind';

const schema = zObject({
  type: z.literal('s3'),
  /** http(s)://host:port of the S3 endpoint. */
  endpoint: zStr(/^https?:\/\/[^\s/?#]+\/?$/, 'an http(s)://host:port URL'),
  bucket: zStr(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'a bucket name (3 to 63 of a-z, 0-9, dot, hyphen)'),
  region: zStr(/^[a-z0-9-]{1,64}$/, 'a region name such as "us-east-1"').default('us-east-1'),
  /** Prepended to every object key (e.g. "ferry/"), so a bucket can be shared. */
  prefix: zStr(/^([A-Za-z0-9._-]+\/)*$/, 'empty, or folder names ending in "/" such as "ferry/"').default(''),
  /** Path-style URLs (endpoint/bucket/key): needed by Ceph, Swift and MinIO without wildcard DNS. */
  force_path_style: zBool().default(true),
  /** FERRY_S3_ACCESS_KEY_ID / FERRY_S3_SECRET_ACCESS_KEY override these, so the secret need not sit in the file. */
  access_key_id: zStr(/^\S+$/, 'an access key id').optional(),
  secret_access_key: zStr(/^\S+$/, 'a secret access key').optional(),
  /**
   * Parts one multipart upload may have on this server: S3's 10,000 (the default); Swift's s3api allows
   * 1,000 unless raised. A file of more parts is kept in segments (docs/architecture.md, "Files larger than
   * one multipart upload"): no size the config allows is refused.
   */
  max_parts: zInt(2, 10_000).optional(),
});
/** Files in an S3-compatible bucket, as several nodes need (docs/configuration.md). */
export type StorageS3 = z.output<typeof schema>;

export const s3Store: StoreSchema<typeof schema> = {
  schema,
  problems: (c) =>
    c.access_key_id && c.secret_access_key
      ? []
      : // Written out, not through problem() of ../defaults: that module imports this one (no import circle).
        [
          'storage: S3 credentials missing: set FERRY_S3_ACCESS_KEY_ID and FERRY_S3_SECRET_ACCESS_KEY, or storage.access_key_id and storage.secret_access_key',
        ],
  fromEnv: (block, env) => ({
    ...block,
    ...(env.FERRY_S3_ACCESS_KEY_ID ? { access_key_id: env.FERRY_S3_ACCESS_KEY_ID } : {}),
    ...(env.FERRY_S3_SECRET_ACCESS_KEY ? { secret_access_key: env.FERRY_S3_SECRET_ACCESS_KEY } : {}),
  }),
  describe: (c) => `S3 bucket ${c.bucket} at ${c.endpoint}${c.prefix ? `, prefix ${c.prefix}` : ''}`,
  outsideDataDir: (c) => `in the S3 bucket ${c.bucket} (prefix "${c.prefix}")`,
};
