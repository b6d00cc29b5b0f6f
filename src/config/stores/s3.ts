import { bool, int, str } from '../checks';
import type { StoreSchema } from './kind';

/** Files in an S3-compatible bucket, as several nodes need (docs/configuration.md). */
export interface StorageS3 {
  type: 's3';
  /** http(s)://host:port of the S3 endpoint. */
  endpoint: string;
  bucket: string;
  region: string;
  /** Prepended to every object key (e.g. "ferry/"), so a bucket can be shared. */
  prefix: string;
  /** Path-style URLs (endpoint/bucket/key): needed by Ceph, Swift and MinIO without wildcard DNS. */
  force_path_style: boolean;
  /** FERRY_S3_ACCESS_KEY_ID / FERRY_S3_SECRET_ACCESS_KEY override these, so the secret need not sit in the file. */
  access_key_id?: string;
  secret_access_key?: string;
  /**
   * Parts one multipart upload may have on this server: S3's 10,000 (the default); Swift's s3api allows
   * 1,000 unless raised. A file of more parts is kept in segments (docs/architecture.md, "Files larger than
   * one multipart upload"): no size the config allows is refused.
   */
  max_parts?: number;
}

export const s3Store: StoreSchema<StorageS3> = {
  fields: {
    endpoint: str(/^https?:\/\/[^\s/?#]+\/?$/, 'an http(s)://host:port URL'),
    bucket: str(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'a bucket name (3 to 63 of a-z, 0-9, dot, hyphen)'),
    region: str(/^[a-z0-9-]{1,64}$/, 'a region name such as "us-east-1"'),
    prefix: str(/^([A-Za-z0-9._-]+\/)*$/, 'empty, or folder names ending in "/" such as "ferry/"'),
    force_path_style: bool,
    access_key_id: str(/^\S+$/, 'an access key id'),
    secret_access_key: str(/^\S+$/, 'a secret access key'),
    max_parts: int(2, 10_000),
  },
  required: ['endpoint', 'bucket'],
  defaults: { region: 'us-east-1', prefix: '', force_path_style: true },
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
