import type { Api } from '../lib/api';
import type { ApiFile, ApiTransfer } from '../lib/types';
import { isRangeList, rangesTotal } from './ranges';
import type { ResumeFile, ResumeRecord } from './resume-store';
import { chunkKeyQuery, Source, Upload, UploadOptions } from './uploader';

export interface CreateTransfer {
  recipients: string[];
  from: string;
  expires: number;
  subject?: string;
  message?: string;
  options?: string[];
}

/** POST /transfer, then an Upload ready to run. */
export async function createUpload(api: Api, sources: Source[], req: CreateTransfer, owner: string, opts: UploadOptions): Promise<Upload> {
  const body = {
    ...req,
    files: sources.map((s, i) => ({ name: s.name, size: s.size, mime_type: s.type || 'application/octet-stream', cid: `f${i}` })),
  };
  const t = await api.post<ApiTransfer>('/transfer', body);
  const byCid = new Map(t.files.map((f) => [f.cid, f]));
  const map = new Map<number, Source>();
  const files: ResumeFile[] = sources.map((s, i) => {
    const f: ApiFile | undefined = byCid.get(`f${i}`) ?? t.files[i];
    map.set(f.id, s);
    return { fileId: f.id, uid: f.uid, name: s.name, size: s.size, lastModified: s.lastModified, acked: [], complete: false };
  });
  const record: ResumeRecord = {
    transferId: t.id,
    owner,
    created: Math.floor(Date.now() / 1000),
    chunkSize: opts.chunkSize,
    subject: req.subject ?? '',
    recipients: req.recipients,
    files,
    links: t.recipients.map((r) => ({ email: r.email, url: r.download_url })),
  };
  opts.store?.save(record);
  return new Upload(api, record, map, opts);
}

/**
 * Continues a remembered upload with the files chosen again. The server's view wins where it knows more:
 * `ranges` when it exposes them, and a file it reports complete or fully received needs no more data.
 */
export async function resumeUpload(api: Api, record: ResumeRecord, sources: Map<number, Source>, opts: Omit<UploadOptions, 'chunkSize'>): Promise<Upload> {
  for (const f of record.files) {
    if (f.complete) continue;
    const remote = await api.get<ApiFile>(`/file/${f.fileId}`, { query: chunkKeyQuery(f, opts.useKey) });
    if (remote.complete) f.complete = true;
    if (isRangeList(remote.ranges)) f.acked = remote.ranges;
    else if (remote.received === f.size) f.acked = [[0, f.size]];
    // Otherwise keep our own list: every range in it was acknowledged, so it is a subset of what the
    // server holds; chunks whose answer never arrived are sent again (they were in flight).
    if (!f.complete && !sources.has(f.fileId) && rangesTotal(f.acked) < f.size) throw new Error(`missing source for ${f.name}`);
  }
  return new Upload(api, record, sources, { ...opts, chunkSize: record.chunkSize });
}

