import { ClientError } from '../errors';
import type { FerryApi } from '../http';
import type { ServerTransfer } from './server';

/**
 * Checks of an answer's shape: an answer the client cannot use is reported with the request and what came
 * back, never left to fail later as a property of undefined.
 */
export function unusable(what: string, request: string, got: unknown, lacking: string): ClientError {
  const text = JSON.stringify(got) ?? String(got);
  return new ClientError(
    `${what}: the answer to ${request} ${lacking}: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`,
    2,
  );
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** A transfer as both kinds answer it (POST /transfer, GET and PUT /transfer/{id}), or a clear refusal. */
export function transferOf(what: string, request: string, t: unknown): ServerTransfer {
  if (!isObject(t) || wholeNumber(t.id) === null) throw unusable(what, request, t, 'has no transfer id');
  // FileSender echoes what it was sent in the answer to POST /transfer, as PHP holds it: sizes and the expiry
  // as strings ("size":"10"), a cid of "0" as false.
  const files = Array.isArray(t.files)
    ? t.files.map((f) =>
        isObject(f) ? { ...f, id: wholeNumber(f.id), size: wholeNumber(f.size), name: f.name } : null,
      )
    : null;
  if (!files?.every((f) => f && f.id !== null && f.size !== null && typeof f.name === 'string'))
    throw unusable(what, request, t, 'has no list of files with id, name and size');
  if (!Array.isArray(t.recipients)) throw unusable(what, request, t, 'has no list of recipients');
  const raw = isObject(t.expires) ? wholeNumber(t.expires.raw) : null;
  return { ...t, id: wholeNumber(t.id), files, expires: raw === null ? null : { raw } } as unknown as ServerTransfer;
}

/** A whole number, also from its decimal string; else null. */
export function wholeNumber(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}

export function numberOr(v: unknown, fallback: number | null): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

/** PUT /transfer/{id} {complete}: the same request on ferry and on FileSender. */
export async function completeTransfer(api: FerryApi, id: number): Promise<ServerTransfer> {
  const t = await api.call('PUT', `/transfer/${id}`, { json: { complete: true }, what: 'completing the transfer' });
  return transferOf('completing the transfer', `PUT /transfer/${id}`, t);
}

/** Removes a transfer that will not be carried on: best effort, a failure is reported (its message), not thrown. */
export async function discardTransfer(api: FerryApi, id: number): Promise<string | null> {
  try {
    await api.call('DELETE', `/transfer/${id}`, {
      what: 'removing the unfinished transfer',
      emptyOk: true,
      retries: 1,
    });
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
