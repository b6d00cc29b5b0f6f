import crypto from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';

/**
 * Longest wait for a store's answer to begin (for a chunk streamed from its client: for the store to take the
 * next bytes, or to answer once the last one is sent: see countedBody). Longer than any answer a working store
 * gives to one request of ferry's: a part of at most a few tens of MiB, a HEAD, a list page.
 */
export const REQUEST_TIMEOUT_MS = 15_000;
/**
 * Requests that make the store work in proportion to a file (CompleteMultipartUpload of up to 10,000 parts, a
 * ranged UploadPartCopy) may take longer before their answer begins.
 */
export const LONG_REQUEST_TIMEOUT_MS = 120_000;
/** Each request is sent at most this many times (a 5xx, a reset, a timeout): one try and one retry. */
export const MAX_ATTEMPTS = 2;

export interface S3Settings {
  endpoint: string;
  bucket: string;
  region: string;
  prefix: string;
  forcePathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * An S3 client set up for the S3-compatible servers ferry is run on (Ceph's RADOS Gateway, Swift's s3api,
 * MinIO, Garage, AWS): checksums only where S3 requires them (the SDK's default streams bodies as
 * `aws-chunked` with trailing checksums, which Ceph and Swift refuse); path-style addressing when asked (a
 * bucket name in the host needs wildcard DNS); and a Content-MD5 on DeleteObjects, which Swift requires (as S3
 * did until 2025) while the SDK now sends a CRC32 header instead.
 */
export function makeS3Client(s: S3Settings): S3Client {
  const client = new S3Client({
    endpoint: s.endpoint,
    region: s.region,
    credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
    forcePathStyle: s.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: MAX_ATTEMPTS,
    // A store that does not answer is reported (503 storage_unavailable) rather than waited for: a request whose
    // answer has not begun within REQUEST_TIMEOUT_MS is aborted (without throwOnRequestTimeout the SDK only logs
    // a warning and waits on), and tried again at most once, so a client's chunk is answered within about 35 s
    // (docs/deploying.md, "When the store or the database fails"). Downloads each hold a connection for as
    // long as they stream, so the pool is larger than the SDK's 50.
    requestHandler: {
      connectionTimeout: 5000,
      requestTimeout: REQUEST_TIMEOUT_MS,
      throwOnRequestTimeout: true,
      httpAgent: { maxSockets: 512, keepAlive: true },
      httpsAgent: { maxSockets: 512, keepAlive: true },
    },
  });
  addContentMd5OnDeleteObjects(client);
  return client;
}

/** Swift's s3api refuses DeleteObjects without Content-MD5, which the SDK no longer sends (a CRC32 instead). */
export function addContentMd5OnDeleteObjects(client: S3Client): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      if (context.commandName === 'DeleteObjectsCommand' && request.headers && typeof request.body === 'string') {
        request.headers['content-md5'] = crypto.createHash('md5').update(request.body).digest('base64');
      }
      return next(args);
    },
    { step: 'build', name: 'contentMd5OnDeleteObjects' },
  );
}
