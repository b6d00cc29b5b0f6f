import fs from 'node:fs';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { TestServer } from './server';
import { until } from './until';

/**
 * What a test server's file store holds, whichever store it runs on (the filesystem, or S3 with
 * FERRY_TEST_STORAGE=s3): the HTTP tests check stored bytes (ciphertext only, byte-identical uploads) and
 * leftovers on both. The layout is the stores' own: `<data_dir>/files/<transfer>/<uid>` on the filesystem,
 * `<prefix><transfer>/<uid>` in the bucket (src/storage/fs-store.ts, src/storage/s3-store.ts).
 */
interface S3Settings {
  endpoint: string;
  bucket: string;
  region: string;
  prefix: string;
  access_key_id: string;
  secret_access_key: string;
}

function s3Of(s: TestServer): S3Settings | null {
  const st = s.app.config.storage as unknown as { type: string } & S3Settings;
  return st.type === 's3' ? st : null;
}

function clientOf(st: S3Settings): S3Client {
  return new S3Client({
    endpoint: st.endpoint,
    region: st.region,
    credentials: { accessKeyId: st.access_key_id, secretAccessKey: st.secret_access_key },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** The bytes stored for a completed file (on S3 an incomplete file's chunks are parts not yet one object). */
export async function storedBytes(s: TestServer, transferId: number, uid: string): Promise<Buffer> {
  const st = s3Of(s);
  if (!st) return fs.readFileSync(path.join(s.app.config.data_dir, 'files', String(transferId), uid));
  const client = clientOf(st);
  try {
    const r = await client.send(new GetObjectCommand({ Bucket: st.bucket, Key: `${st.prefix}${transferId}/${uid}` }));
    return Buffer.from(await r.Body!.transformToByteArray());
  } finally {
    client.destroy();
  }
}

/** The uids of the files the store holds any data of for a transfer (none once it is deleted). */
export async function storedUids(s: TestServer, transferId: number): Promise<string[]> {
  const st = s3Of(s);
  if (!st) {
    const dir = path.join(s.app.config.data_dir, 'files', String(transferId));
    return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
  }
  const client = clientOf(st);
  try {
    const base = `${st.prefix}${transferId}/`;
    const uids = new Set<string>();
    let token: string | undefined;
    // Bounded: a test's transfer has a few objects; a thousand pages would be a broken listing.
    for (let page = 0; page < 1000; page++) {
      const r = await client.send(
        new ListObjectsV2Command({ Bucket: st.bucket, Prefix: base, ContinuationToken: token }),
      );
      // A file's data is its object, or its staged chunks and segments beside it (`<uid>.staged/…`, `<uid>.seg/…`).
      for (const o of r.Contents ?? []) uids.add(o.Key!.slice(base.length).split(/[./]/)[0]);
      if (!r.IsTruncated) break;
      token = r.NextContinuationToken;
    }
    return [...uids].sort();
  } finally {
    client.destroy();
  }
}

/**
 * GET /file/{id} once its SHA-256 is known: at completion on the filesystem (digested as the chunks arrive), a
 * moment later on S3 (a background job reads the object back; docs/architecture.md).
 */
export async function fileWithDigest(
  s: TestServer,
  fileId: number,
  headers: Record<string, string> = {},
  query = '',
): Promise<any> {
  let info: any;
  await until(
    `the SHA-256 of file ${fileId}`,
    async () => {
      info = (await s.request('GET', `/file/${fileId}${query}`, { headers })).json;
      return typeof info?.sha256 === 'string';
    },
    15_000,
  );
  return info;
}
