import type { Credentials } from './credentials';
import { FerryApi } from './http';
import type { ReporterIO } from './progress';

export interface GuestOptions {
  email: string;
  subject?: string;
  message?: string;
  days?: number;
  from?: string;
}

export interface GuestResult {
  guest_id: number;
  email: string;
  expires: number | null;
  upload_url: string | null;
}

interface ServerGuest {
  id: number;
  email: string;
  expires?: { raw: number } | null;
  upload_url?: string;
}

/** `ferry send --guest <email>`: invites someone to upload files for you; the server mails them the upload link. */
export async function inviteGuest(creds: Credentials, o: GuestOptions, io: ReporterIO): Promise<GuestResult> {
  const api = new FerryApi(creds, { onRetry: (n) => io.err(`retrying ${n.what} in ${Math.round(n.delayMs / 1000)} s: ${n.reason}`) });
  try {
    const body: Record<string, unknown> = { recipient: o.email, subject: o.subject ?? '', message: o.message ?? '', options: [] };
    // Absent, the server takes the account's first address and its default validity.
    if (o.from) body.from = o.from;
    if (o.days !== undefined) {
      await api.call('GET', '/info', { what: 'reading the server clock' });
      body.expires = api.serverNow() + Math.round(o.days * 86400);
    }
    const g = await api.call<ServerGuest>('POST', '/guest', { json: body, what: `inviting ${o.email}` });
    return { guest_id: g.id, email: g.email, expires: g.expires?.raw ?? null, upload_url: g.upload_url ?? null };
  } finally {
    api.close();
  }
}
