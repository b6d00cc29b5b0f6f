import type { TransferJson } from '../../src/http/presenters/wire';
import { ApiError, type ApiOptions, NetworkError } from '../lib/api';
import type { ResumeRecord } from './resume-store';
import type { UploadProgress } from './uploader';

/**
 * The messages between the upload page and its upload worker (web/upload/upload-worker.ts). Everything
 * crosses by structured clone: the record, the files (a File is cloned as a reference to the same data, not
 * copied), the transfer's non-extractable key; errors cross as their facts and are built again.
 */
export type ToWorker =
  | {
      type: 'start';
      api: Omit<ApiOptions, 'fetch'>;
      record: ResumeRecord;
      files: [number, Blob][];
      concurrency: number;
      useKey: boolean;
      online: boolean;
      key?: CryptoKey;
    }
  | { type: 'run' | 'pause' | 'resume' | 'wake' | 'cancel' }
  | { type: 'online'; online: boolean };

export type FromWorker =
  | { type: 'progress'; progress: WireProgress }
  /** The resume record to keep (the page's storage is not reachable from a worker). */
  | { type: 'record'; record: ResumeRecord }
  | { type: 'forget'; transferId: number }
  /** A run ended: with the Transfer (done), null (paused or cancelled), or an error (failed). */
  | { type: 'settled'; transfer: TransferJson | null; error: WireError | null }
  | { type: 'cancelled'; error: WireError | null };

export interface WireError {
  kind: 'api' | 'network' | 'other';
  message: string;
  id?: string;
  status?: number;
  details?: string[] | null;
  retryAfterS?: number | null;
}

export type WireProgress = Omit<UploadProgress, 'error'> & { error: WireError | null };

export function toWire(e: unknown): WireError {
  if (e instanceof ApiError)
    return {
      kind: 'api',
      message: e.message,
      id: e.id,
      status: e.status,
      details: e.details,
      retryAfterS: e.retryAfterS,
    };
  if (e instanceof NetworkError) return { kind: 'network', message: e.message };
  return { kind: 'other', message: e instanceof Error ? e.message : String(e) };
}

export function fromWire(w: WireError): Error {
  if (w.kind === 'api') return new ApiError(w.id ?? w.message, w.status ?? 0, w.details ?? null, w.retryAfterS ?? null);
  if (w.kind === 'network') return new NetworkError(w.message);
  return new Error(w.message);
}
