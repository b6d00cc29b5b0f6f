import type { SignedBody } from '../domain/ports';
/** Who is making a request, as resolved by the authenticators in the spec's order. */
export interface UserIdentity {
  id: string;
  emails: string[];
}

export interface GuestIdentity {
  id: number;
  token: string;
  /** The user who invited the guest; Transfers the guest creates belong to this user. */
  userId: string;
  email: string;
  options: string[];
  transferOptions: string[];
}

export type AuthVia = 'sp' | 'remote_user' | 'remote_application';

export type Principal =
  | { type: 'anonymous' }
  | {
      type: 'user';
      user: UserIdentity;
      via: AuthVia;
      isAdmin: boolean;
      /** The identity provider (auth.sp[].id) that signed the person in, when via is sp. */
      provider?: string;
      /** Name of the remote application acting for the user, when via is remote_application. */
      application?: string;
      /** Set for browser sessions: the token POST/PUT/DELETE must carry. */
      csrfToken?: string;
      attributes?: Record<string, unknown>;
      /** Set for a signed POST/PUT/DELETE: gives its spent signature back when the request is refused. */
      releaseSignature?: () => Promise<void>;
      /** Set when the signed body is still to stream: the principal holds only once it is verified. */
      signedBody?: SignedBody;
    }
  | {
      type: 'application';
      application: string;
      isAdmin: boolean;
      releaseSignature?: () => Promise<void>;
      signedBody?: SignedBody;
    }
  | { type: 'guest'; guest: GuestIdentity };

export const ANONYMOUS: Principal = { type: 'anonymous' };

export function isAdmin(p: Principal): boolean {
  return (p.type === 'user' || p.type === 'application') && p.isAdmin;
}

/** True when the request came through a signature (remote application or remote user). */
export function isRemote(p: Principal): boolean {
  return (p.type === 'user' && p.via !== 'sp') || p.type === 'application';
}

/** The facts about an HTTP request an authenticator may look at; free of Koa so auth code stays testable. */
export interface AuthRequest {
  method: string;
  /** Path as received, including any /rest.php prefix, without the query. */
  path: string;
  /** The raw query string as received (without '?'). */
  rawQuery: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** The TCP peer's address (never a forwarded header). */
  remoteAddress: string;
  /** Raw request body for signature checks; empty when there is none. */
  body: Buffer;
  /**
   * The body is not read yet and streams after authentication (a chunk upload): a signature is then checked
   * up to the body (timestamp window, credential), and its HMAC while the body streams (Principal.signedBody).
   */
  bodyFollows?: boolean;
  cookies: Record<string, string>;
}

export interface Authenticator {
  readonly name: string;
  /** Returns the principal when this mode is detected, null when it is not; throws ServiceError when detected but invalid. */
  authenticate(req: AuthRequest): Promise<Principal | null> | Principal | null;
}

/** Tries each authenticator in order and stops at the first one that detects its mode (spec: Evaluation order). */
export async function resolvePrincipal(chain: Authenticator[], req: AuthRequest): Promise<Principal> {
  for (const a of chain) {
    const p = await a.authenticate(req);
    if (p) return p;
  }
  return ANONYMOUS;
}
