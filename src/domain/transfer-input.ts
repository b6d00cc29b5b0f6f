import type { EncryptedDraft } from './encryption-input';
import type { SharingControls } from './ports';
import { Errors } from './errors';
import { parseOptions, TRANSFER_OPTIONS } from './options';
import { isSafeRelativeName } from './file-names';

/** The limits POST /transfer is checked against (read from Settings on every request). */
export interface TransferLimits {
  maxDays: number;
  maxSize: number;
  maxFiles: number;
  maxRecipients: number;
}

export interface TransferDraft {
  files: { name: string; size: number; mimeType: string | null; cid: string | null }[];
  recipients: string[];
  options: string[];
  expires: number;
  from: string | null;
  subject: string | null;
  message: string | null;
  /** End-to-end encryption parameters (parseEncryption, checked with the same body); null for a plain transfer. */
  encryption?: EncryptedDraft | null;
  /** Download limit and link password hash (docs/sharing.md); none when absent. */
  sharing?: SharingControls | null;
}

// The local part: no controls (C0, DEL, C1), no bidi embeddings, overrides or isolates (which would show
// "moc.evil" as "live.com"), and dots only between characters, as RFC 5321 requires; SMTP servers refuse
// ".x", "x." and "a..b", so accepting them only turned into a bounce later. A domain label is 1 to 63
// characters (RFC 1035), starting and ending with a letter or digit.
const EMAIL =
  /^(?!\.)(?!.*\.\.)[^\s\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069@<>()[\]\\,;:"]{1,64}(?<!\.)@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const DAY = 86400;

export function isEmail(v: unknown): v is string {
  return typeof v === 'string' && v.length <= 254 && EMAIL.test(v);
}

function optionalText(v: unknown, field: string, max: number, oneLine = false): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || v.length > max || v.includes('\0')) throw Errors.restBadParameter(field);
  // A subject becomes a mail header and a page title: one line, as POST /guest requires.
  // eslint-disable-next-line no-control-regex
  if (oneLine && /[\u0000-\u0008\u000a-\u001f\u007f]/.test(v)) throw Errors.restBadParameter(field);
  return v;
}

/** Latest allowed expiry: the end of the UTC day `days` days from now, so a date picker's last day is accepted. */
export function latestExpiry(now: number, days: number): number {
  const t = now + days * DAY;
  return t - (t % DAY) + DAY - 1;
}

/**
 * FileSender's clients tick the acceptable-use policy with `aup_checked` (true or 1) on POST /transfer and
 * POST /guest. ferry has no policy to accept, so the field is only checked for its form.
 */
export function parseAupChecked(v: unknown): void {
  if (v === undefined || v === null || typeof v === 'boolean' || v === 0 || v === 1) return;
  throw Errors.restBadParameter('aup_checked');
}

/** Checks a POST /transfer body against the spec's table and the configured limits; errors name the field. */
export function parseTransferInput(body: unknown, limits: TransferLimits, now: number): TransferDraft {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw Errors.badRequestBody();
  const b = body as Record<string, unknown>;
  if (b.files === undefined || (Array.isArray(b.files) && b.files.length === 0)) throw Errors.transferNoFiles('files');
  if (!Array.isArray(b.files)) throw Errors.restBadParameter('files');
  if (b.files.length > limits.maxFiles) throw Errors.transferTooManyFiles('files');
  let total = 0;
  const files = b.files.map((f: unknown, i: number) => {
    if (typeof f !== 'object' || f === null || Array.isArray(f)) throw Errors.restBadParameter(`files[${i}]`);
    const r = f as Record<string, unknown>;
    if (
      typeof r.name !== 'string' ||
      r.name.trim() === '' ||
      r.name.length > 1024 ||
      r.name.includes('\0') ||
      !isSafeRelativeName(r.name)
    ) {
      throw Errors.restBadParameter(`files[${i}].name`);
    }
    if (typeof r.size !== 'number' || !Number.isSafeInteger(r.size) || r.size < 0)
      throw Errors.restBadParameter(`files[${i}].size`);
    total += r.size;
    return {
      name: r.name,
      size: r.size,
      mimeType: optionalText(r.mime_type, `files[${i}].mime_type`, 255),
      cid: optionalText(r.cid, `files[${i}].cid`, 255),
    };
  });
  if (total > limits.maxSize) throw Errors.transferMaximumSizeExceeded('files');
  parseAupChecked(b.aup_checked);
  const options = parseOptions(b.options, 'options', TRANSFER_OPTIONS, []);
  const recipients = parseRecipients(b.recipients, limits.maxRecipients);
  if (b.expires === undefined || b.expires === null) throw Errors.badExpire('expires');
  const expires = typeof b.expires === 'string' && /^\d{1,12}$/.test(b.expires) ? Number(b.expires) : b.expires;
  if (
    typeof expires !== 'number' ||
    !Number.isSafeInteger(expires) ||
    expires <= now ||
    expires > latestExpiry(now, limits.maxDays)
  ) {
    throw Errors.badExpire('expires');
  }
  const from = b.from === undefined || b.from === null ? null : b.from;
  if (from !== null && !isEmail(from)) throw Errors.badEmail('from');
  return {
    files,
    recipients,
    options,
    expires,
    from: from as string | null,
    subject: optionalText(b.subject, 'subject', 255, true),
    message: optionalText(b.message, 'message', 10_000),
  };
}

/** Recipient addresses, validated and de-duplicated (case-insensitively); the count limit applies. */
export function parseRecipients(v: unknown, max: number): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw Errors.restBadParameter('recipients');
  if (v.length > max) throw Errors.transferTooManyRecipients('recipients');
  const seen = new Set<string>();
  const out: string[] = [];
  v.forEach((e, i) => {
    if (!isEmail(e)) throw Errors.badEmail(`recipients[${i}]`);
    const key = e.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      out.push(e);
    }
  });
  return out;
}
