import type { RouterContext } from '@koa/router';
import type { Principal } from '../auth/principal';
import type { Services } from '../services';

/** What the middleware chain leaves on ctx.state for the routes. */
export interface FerryState {
  /** This request's id (request log, X-Request-Id, the uid of an error answer). */
  requestId?: string;
  principal: Principal;
  services: Services;
  /** The resource an owner-level route loaded and checked. */
  resource?: unknown;
  /** The route's input, parsed by its schemas (src/http/input.ts) after the access check. */
  input?: unknown;
  /** Raw body bytes, kept for signature checks. */
  rawBody?: Buffer;
  /** A signed chunk upload: its body streams after authentication, its HMAC computed on the way. */
  bodyFollows?: boolean;
  /** The signed-in user's stored language preference, once read (request-lang.ts). */
  userLang?: string | null;
  /** Language chosen for this request (user preference, Accept-Language, default). */
  lang?: string;
  /** Writes the response body itself, once every middleware has set its headers (downloads). */
  sendBody?: () => Promise<void>;
  /** The handler set a Content-Security-Policy of its own for its HTML (security-headers.ts keeps it). */
  ownCsp?: boolean;
  /** Set when a download was cut because the stored bytes did not match their SHA-256 (counted by the metrics). */
  digestMismatch?: boolean;
  /** Set when a download was cut because the store stopped sending its bytes (counted by the metrics). */
  storeCut?: boolean;
}

export type FerryContext = RouterContext<FerryState>;
