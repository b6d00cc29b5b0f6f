import { Errors } from './errors';
import { GUEST_OPTIONS, TRANSFER_OPTIONS, parseOptions } from './options';
import { isEmail, latestExpiry, parseAupChecked } from './transfer-input';

/** Who is inviting: the user, with the rule that applies to `from` under their authentication mode. */
export interface GuestCreator {
  userId: string;
  emails: string[];
  /** Service Provider: `from` must be one of the user's addresses. Remote modes: a format check only. */
  fromMustBeOwn: boolean;
}

/** Limits read from Settings at the moment of the request (PUT /config may change them). */
export interface GuestLimits {
  defaultDays: number;
  maxDays: number;
}

/** A POST /guest body once checked: every field in its stored form. */
export interface GuestDraft {
  email: string;
  userEmail: string;
  subject: string | null;
  message: string | null;
  options: string[];
  transferOptions: string[];
  /** null when does_not_expire. */
  expires: number | null;
}

/** Guest options that are on unless the request turns them off ({"email_guest_created": false}). */
export const GUEST_OPTIONS_ON_BY_DEFAULT = ['email_guest_created'];

const DAY = 86400;
const MAX_SUBJECT = 255;
const MAX_MESSAGE = 10000;

/** Checks a POST /guest body; throws the ServiceError naming the first offending field. */
export function parseGuestInput(body: unknown, creator: GuestCreator, limits: GuestLimits, now: number): GuestDraft {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw Errors.badRequestBody();
  const b = body as Record<string, unknown>;

  const email = parseRecipient(b.recipient);
  const userEmail = parseFrom(b.from, creator);
  const subject = parseText(b.subject, 'subject', MAX_SUBJECT, true);
  const message = parseText(b.message, 'message', MAX_MESSAGE, false);
  parseAupChecked(b.aup_checked);
  const given = splitOptions(b);
  const options = parseOptions(given.options, given.optionsField, GUEST_OPTIONS, GUEST_OPTIONS_ON_BY_DEFAULT);
  const transferOptions = parseOptions(given.transferOptions, given.transferField, TRANSFER_OPTIONS, []);
  const expires = options.includes('does_not_expire') ? null : parseExpires(b.expires, limits, now);
  return { email, userEmail, subject, message, options, transferOptions, expires };
}

/**
 * Guest and transfer options as the spec sends them (`options`, `transfer_options`), or in FileSender's
 * nested form `options: {"guest": {…}, "transfer": {…}}`, which its web page sends.
 */
function splitOptions(b: Record<string, unknown>) {
  const o = b.options;
  const nested =
    typeof o === 'object' &&
    o !== null &&
    !Array.isArray(o) &&
    Object.keys(o).length > 0 &&
    Object.keys(o).every((k) => k === 'guest' || k === 'transfer');
  if (!nested)
    return {
      options: o,
      optionsField: 'options',
      transferOptions: b.transfer_options,
      transferField: 'transfer_options',
    };
  const { guest, transfer } = o as { guest?: unknown; transfer?: unknown };
  if (transfer !== undefined && b.transfer_options !== undefined) throw Errors.restBadParameter('transfer_options');
  return {
    options: guest,
    optionsField: 'options.guest',
    transferOptions: transfer ?? b.transfer_options,
    transferField: transfer !== undefined ? 'options.transfer' : 'transfer_options',
  };
}

function parseRecipient(v: unknown): string {
  if (v === undefined || v === null || v === '') throw Errors.restMissingParameter('recipient');
  if (typeof v !== 'string' || !isEmail(v.trim())) throw Errors.badEmail('recipient');
  return v.trim();
}

function parseFrom(v: unknown, creator: GuestCreator): string {
  if (v === undefined || v === null || v === '') {
    // FileSender's own form always sends it; a bare REST client gets the user's first address.
    if (!creator.emails.length) throw Errors.restMissingParameter('from');
    return creator.emails[0];
  }
  // FileSender's client sends its configured user name as `from`; when that is the user's own id rather
  // than an address, it stands for the user's first address.
  if (v === creator.userId && !isEmail(v) && creator.emails.length) return creator.emails[0];
  if (typeof v !== 'string' || !isEmail(v.trim())) throw Errors.badEmail('from');
  const from = v.trim();
  if (!creator.fromMustBeOwn) return from;
  const own = creator.emails.find((e) => e.toLowerCase() === from.toLowerCase());
  if (!own) throw Errors.badEmail('from');
  return own;
}

function parseText(v: unknown, field: string, max: number, oneLine: boolean): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length > max) throw Errors.restBadParameter(field);
  // The subject becomes a mail header line: no line breaks or other control characters.
  if (oneLine && /[\u0000-\u0008\u000a-\u001f\u007f]/.test(v)) throw Errors.restBadParameter(field);
  return v;
}

/**
 * Absent: default_guest_days_valid from now (never beyond the maximum). Given: a UNIX time in the future and
 * no later than the end of the UTC day max_guest_days_valid days from now, so a date picker's "last allowed
 * day" is accepted whatever time of that day it sends.
 */
function parseExpires(v: unknown, limits: GuestLimits, now: number): number {
  const latest = latestExpiry(now, limits.maxDays);
  if (v === undefined || v === null || v === '') return now + Math.min(limits.defaultDays, limits.maxDays) * DAY;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n <= now || n > latest) throw Errors.badExpire('expires');
  return n;
}
