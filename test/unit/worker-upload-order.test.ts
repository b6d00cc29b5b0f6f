import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TransferJson } from '../../src/http/presenters/wire';
import type { ResumeRecord } from '../../web/upload/resume-store';
import type { UploadProgress } from '../../web/upload/uploader';
import type { FromWorker } from '../../web/upload/worker-protocol';
import { WorkerUpload } from '../../web/upload/worker-upload';

// The page's side of the upload worker, with the worker scripted: what the page draws depends only on the
// order of the worker's messages, which a browser test meets only by chance (a frame drawn between two of them).
class ScriptedWorker {
  static last: ScriptedWorker | null = null;
  onmessage: ((e: { data: FromWorker }) => void) | null = null;
  onerror: (() => void) | null = null;
  terminated = false;
  constructor() {
    ScriptedWorker.last = this;
  }
  /** What the page asks of the worker (start, run, pause) goes unanswered: each test says what the worker does. */
  postMessage() {}
  terminate() {
    this.terminated = true;
  }
  say(m: FromWorker) {
    this.onmessage?.({ data: m });
  }
}
// Standing in for the browser's globals while these tests run, and gone after (the unit files share a process).
const g = globalThis as Record<string, unknown>;
const BROWSER_GLOBALS = {
  Worker: ScriptedWorker,
  addEventListener: () => undefined,
  removeEventListener: () => undefined,
};
test.before(() => {
  Object.assign(g, BROWSER_GLOBALS);
});
test.after(() => {
  for (const k of Object.keys(BROWSER_GLOBALS)) delete g[k];
});

const record: ResumeRecord = {
  transferId: 7,
  owner: 'user:a',
  created: 1,
  chunkSize: 4,
  subject: 's',
  recipients: ['r@example.org'],
  links: [],
  files: [{ fileId: 1, uid: 'u1', name: 'a.bin', size: 4, lastModified: 1, acked: [], complete: false }],
};
const progress = (phase: UploadProgress['phase']) => ({
  phase,
  transferId: 7,
  total: 4,
  sent: 4,
  speed: 0,
  eta: null,
  files: [],
  retryAt: null,
  error: null,
  bytesSent: 4,
});
const transfer = { id: 7, recipients: [{ email: 'r@example.org' }] } as unknown as TransferJson;

/** The page's handle on an upload, reporting to `onChange`, and the scripted worker behind it. */
function openUpload(onChange: (p: UploadProgress, upload: WorkerUpload) => void) {
  const upload: WorkerUpload = new WorkerUpload(
    {
      api: { portable: () => ({}) } as never,
      record,
      sources: new Map(),
      opts: { chunkSize: 4, onChange: (p) => onChange(p, upload) },
    },
    '/assets/upload-worker.js',
  );
  return { upload, worker: () => ScriptedWorker.last! };
}

test('the page is told "done" only with the Transfer in hand, though the worker posts "done" first', async () => {
  const seen: [string, TransferJson | null][] = [];
  const { upload, worker } = openUpload((p, u) => {
    seen.push([p.phase, u.result]);
  });
  const done = upload.run();
  const w = worker();
  w.say({ type: 'progress', progress: progress('uploading') });
  w.say({ type: 'progress', progress: progress('finishing') });
  w.say({ type: 'progress', progress: progress('done') });
  assert.equal(
    seen.map(([p]) => p),
    ['uploading', 'finishing'],
    'no "done" without the Transfer',
  );
  w.say({ type: 'settled', transfer, error: null });
  assert.equal(seen.at(-1), ['done', transfer]);
  assert.is(upload.progress().phase, 'done');
  assert.is(await done, transfer);
  assert.ok(w.terminated, 'the worker is let go once done');
});

test('a pause still reaches the page at once (no Transfer is awaited for it)', async () => {
  const seen: string[] = [];
  const { upload, worker } = openUpload((p) => {
    seen.push(p.phase);
  });
  const run = upload.run();
  const w = worker();
  w.say({ type: 'progress', progress: progress('paused') });
  w.say({ type: 'settled', transfer: null, error: null });
  assert.equal(seen, ['paused']);
  assert.is(await run, null);
  assert.is(upload.result, null);
  assert.not.ok(w.terminated, 'a paused upload keeps its worker to resume');
});

test.run();
