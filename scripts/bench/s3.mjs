// The S3 rows: ferry keeping file data on an S3-compatible server, beside the same client talking to that server
// directly through the SDK, in the same run. The server is the tests' own (Swift with s3api from Debian's
// packages, test/helpers/system/s3.ts), on the same cores as everything else.
import fs from 'node:fs';
import path from 'node:path';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { MiB, drain, measure, openSource, pool, startFerry } from './lib.mjs';
import { CHUNK, USER, completeTransfer, createTransfer, deleteTransfer, uploadFile } from './clients.mjs';

const IN_FLIGHT = 4;

/**
 * The baseline upload: one multipart upload of the file in CHUNK-sized parts, IN_FLIGHT parts at a time, the way
 * ferry's clients send chunks (the SDK's own Upload helper lives in a package this project does not carry).
 */
async function uploadDirect(client, bucket, key, source, size) {
  const src = await openSource(source, CHUNK);
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  const parts = [];
  try {
    await pool(Math.ceil(size / CHUNK), IN_FLIGHT, (i) =>
      src.use(i * CHUNK, Math.min(CHUNK, size - i * CHUNK), async (body) => {
        const r = await client.send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: key,
            UploadId,
            PartNumber: i + 1,
            Body: body,
            ContentLength: body.length,
          }),
        );
        parts[i] = { PartNumber: i + 1, ETag: r.ETag };
      }),
    );
    await client.send(
      new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }),
    );
  } catch (e) {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId })).catch(() => {});
    throw e;
  } finally {
    await src.close();
  }
  return { bytes: size };
}

/** The Transfer once available (a completion in the background ends when its files are assembled); bounded. */
async function availableTransfer(url, transfer) {
  for (let i = 0; i < 6000; i++) {
    const r = await fetch(`${url}/transfer/${transfer.id}`, { headers: USER });
    const t = await r.json();
    if (t.status === 'available') return t;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`transfer ${transfer.id} not available after 120 s`);
}

/** The baseline download: one GET of the whole object, counting bytes without keeping them. */
async function downloadDirect(client, bucket, key) {
  const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  let bytes = 0;
  for await (const c of r.Body) bytes += c.length;
  return { bytes };
}

/**
 * Adds the rows through `row(work, ferryRun, baseRun, budget, eachRatio)`. The baseline's server is Swift, a
 * handful of processes this script does not watch: its CPU and RSS columns stay empty.
 */
export async function s3Rows({ size, reps, source, dir, row }) {
  const { tsImport } = await import('tsx/esm/api');
  const { startS3, s3Client } = await tsImport('../../test/helpers/system/s3.ts', import.meta.url);
  const server = await startS3();
  const client = s3Client(server);
  // ferry takes its S3 credentials from the environment, as an operator would give them.
  process.env.FERRY_S3_ACCESS_KEY_ID = server.accessKeyId;
  process.env.FERRY_S3_SECRET_ACCESS_KEY = server.secretAccessKey;
  const ferryDir = path.join(dir, 'ferry-s3');
  fs.mkdirSync(ferryDir);
  const ferry = await startFerry(ferryDir, {
    storage: {
      type: 's3',
      endpoint: server.endpoint,
      bucket: server.bucket,
      region: server.region,
      prefix: 'ferry/',
      force_path_style: true,
    },
  });
  const pid = ferry.proc.pid;
  // A second ferry whose part limit is lowered so that the same file is past it (at least four segments, as a
  // file past S3's 10,000 parts would be): completion in the background, downloads across segment objects.
  const segDir = path.join(dir, 'ferry-s3-segments');
  fs.mkdirSync(segDir);
  const maxParts = Math.max(2, Math.floor(size / CHUNK / 4));
  const ferrySeg = await startFerry(segDir, {
    storage: {
      type: 's3',
      endpoint: server.endpoint,
      bucket: server.bucket,
      region: server.region,
      prefix: 'ferry-seg/',
      force_path_style: true,
      max_parts: maxParts,
    },
  });
  const direct = (fn, opts) => measure(process.pid, fn, opts).then((m) => ({ ...m, cpu: NaN, rss: NaN }));
  const key = 'direct/big.bin';
  try {
    const up = [];
    const base = [];
    let t;
    for (let r = 0; r < reps; r++) {
      if (t) await deleteTransfer(ferry.url, t);
      t = await createTransfer(ferry.url, [size]);
      const fresh = { fresh: { keep: [[source, size]] } };
      up.push(
        await measure(
          pid,
          async () => {
            await uploadFile(ferry.url, t, 0, source, IN_FLIGHT);
            return { bytes: size, transfer: await completeTransfer(ferry.url, t) };
          },
          fresh,
        ),
      );
      base.push(await direct(() => uploadDirect(client, server.bucket, key, source, size), fresh));
    }
    const medianRun = (xs) => [...xs].sort((a, b) => a.wall - b.wall)[Math.floor(xs.length / 2)];
    row(
      `upload ${size / MiB} MiB to S3 through ferry vs SDK multipart upload straight to S3`,
      medianRun(up),
      medianRun(base),
      { min: 0.8, of: 'speed' },
      up.map((x, i) => base[i].wall / x.wall),
    );

    // The same upload into segments; the clock stops once the Transfer is available (its files assembled).
    const seg = [];
    const segBase = [];
    let ts;
    for (let r = 0; r < reps; r++) {
      if (ts) await deleteTransfer(ferrySeg.url, ts);
      ts = await createTransfer(ferrySeg.url, [size]);
      const fresh = { fresh: { keep: [[source, size]] } };
      seg.push(
        await measure(
          ferrySeg.proc.pid,
          async () => {
            await uploadFile(ferrySeg.url, ts, 0, source, IN_FLIGHT);
            await completeTransfer(ferrySeg.url, ts);
            return { bytes: size, transfer: await availableTransfer(ferrySeg.url, ts) };
          },
          fresh,
        ),
      );
      segBase.push(await direct(() => uploadDirect(client, server.bucket, key, source, size), fresh));
    }
    row(
      `upload ${size / MiB} MiB to S3 past the part limit (${maxParts} parts per upload: segments), until available, vs SDK multipart upload straight to S3`,
      medianRun(seg),
      medianRun(segBase),
      { min: 0.8, of: 'speed' },
      seg.map((x, i) => segBase[i].wall / x.wall),
    );
    const segT = seg.at(-1).result.transfer;
    const segDl = await measure(ferrySeg.proc.pid, () =>
      drain(`${ferrySeg.url}/download?token=${segT.recipients[0].token}&files_ids=${segT.files[0].id}`),
    );
    if (segDl.result.bytes !== size) throw new Error(`download across segments: ${segDl.result.bytes} bytes`);
    const segDirectDl = await direct(() => downloadDirect(client, server.bucket, key));
    row(
      `download ${size / MiB} MiB from S3 across segment objects through ferry vs direct GET of one object`,
      segDl,
      segDirectDl,
      { min: 0.8, of: 'speed' },
    );
    await deleteTransfer(ferrySeg.url, segT);

    const transfer = up.at(-1).result.transfer;
    const fileUrl = `${ferry.url}/download?token=${transfer.recipients[0].token}&files_ids=${transfer.files[0].id}`;
    const dl = await measure(pid, () => drain(fileUrl));
    if (dl.result.bytes !== size) throw new Error(`download from S3 through ferry: ${dl.result.bytes} bytes`);
    const directDl = await direct(() => downloadDirect(client, server.bucket, key));
    row(`download ${size / MiB} MiB from S3 through ferry vs direct GET of the object`, dl, directDl, {
      min: 0.8,
      of: 'speed',
    });
    await deleteTransfer(ferry.url, transfer);
    await client.send(new DeleteObjectCommand({ Bucket: server.bucket, Key: key }));
  } catch (e) {
    throw new Error(
      `${e.stack ?? e}\nferry on S3, last log lines:\n${ferry.output().split('\n').slice(-30).join('\n')}\nS3 server:\n${server.logTail(20)}`,
    );
  } finally {
    client.destroy();
    await ferrySeg.stop();
    await ferry.stop();
    await server.stop();
  }
}
