import type { Guest, TrackingError } from '../../domain/model';
import { presentDate, DateJson } from './date';

export interface GuestJson {
  id: number;
  user_id: string;
  user_email: string;
  email: string;
  token: string;
  transfer_count: number;
  subject: string | null;
  message: string | null;
  options: string[];
  transfer_options: string[];
  created: DateJson;
  /** null when the Guest does_not_expire. */
  expires: DateJson | null;
  errors: { type: string; date: DateJson; details: string }[];
  /** Extension: the guest's upload page, to hand over by other means than the invitation mail. */
  upload_url: string;
  /** Extension: 'available' or 'closed' (deleted, expired, or a one-time Guest that has sent its Transfer). */
  status: Guest['status'];
}

export function guestUploadUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/?s=upload&vid=${encodeURIComponent(token)}`;
}

/** The spec's Guest object, plus upload_url and status. */
export function presentGuest(g: Guest, baseUrl: string, lang: string): GuestJson {
  return {
    id: g.id,
    user_id: g.userId,
    user_email: g.userEmail,
    email: g.email,
    token: g.token,
    transfer_count: g.transferCount,
    subject: g.subject,
    message: g.message,
    options: g.options,
    transfer_options: g.transferOptions,
    created: presentDate(g.created, lang),
    expires: presentDate(g.expires, lang),
    errors: g.errors.map((e) => presentTrackingError(e, lang)),
    upload_url: guestUploadUrl(baseUrl, g.token),
    status: g.status,
  };
}

export function presentTrackingError(
  e: TrackingError,
  lang: string,
): { type: string; date: DateJson; details: string } {
  return { type: e.type, date: presentDate(e.date, lang), details: e.details };
}
