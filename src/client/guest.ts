import type { Credentials } from './credentials';
import { ClientError } from './errors';
import type { ReporterIO } from './progress';
import { openSendServer } from './servers/open';

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

/** `ferry send --guest <email>`: invites someone to upload files for you; the server (ferry or FileSender) mails them the upload link. */
export async function inviteGuest(creds: Credentials, o: GuestOptions, io: ReporterIO): Promise<GuestResult> {
  const server = await openSendServer(creds, {
    onRetry: (n) => io.err(`retrying ${n.what} in ${Math.round(n.delayMs / 1000)} s: ${n.reason}`),
  });
  try {
    const s = server.settings();
    if (o.days !== undefined && s.maxGuestDays !== null && o.days > s.maxGuestDays) {
      throw new ClientError(`--days: this server lets a guest upload for at most ${s.maxGuestDays} days`);
    }
    const g = await server.inviteGuest(o);
    return { guest_id: g.id, email: g.email, expires: g.expires?.raw ?? null, upload_url: g.upload_url ?? null };
  } finally {
    server.api.close();
  }
}
