import type { Next } from 'koa';
import { Errors, type ErrorEntry } from '../domain/errors';
import { isAdmin, Principal } from '../auth/principal';
import type { FerryContext } from './state';
import { keyQuery, parseQuery } from './input';

/** A step of a route's chain. */
export type Step = (ctx: FerryContext, next: Next) => unknown;

/**
 * Access levels of the spec (public, users, owner, admin). Every route declares exactly one of these as the
 * first middleware of its chain (see ./api.ts); handlers never check access by hand.
 */
export interface AccessLevel {
  readonly level: 'public' | 'users' | 'owner' | 'admin';
  readonly check: Step;
}

/** Who owns a resource; returned by an owner-level route's loader. */
export interface Owned<T> {
  resource: T;
  /** The user id that owns it (a Transfer's or Guest's creator). */
  ownerId: string;
  /** Transfer the resource belongs to: a guest owns it when it created the Transfer; a chunk key names it. */
  transferId?: number;
  /** Guest that created the Transfer, when one did. */
  guestId?: number | null;
}

export interface OwnerOptions {
  /** The File uid `key` argument is accepted (chunk_upload_security = "key"). */
  chunkKey?: boolean | ((ctx: FerryContext, owned: Owned<unknown>) => boolean);
  /** A guest principal may act when it created the resource's Transfer. */
  guests?: boolean;
  /**
   * The 404 id a non-owner gets: the one the loader throws for an unknown id, so another user's id and an
   * unknown id look alike (ids cannot be probed). Required, so no owner route can answer otherwise.
   */
  notFound: ErrorEntry;
}

const authRequired = () => Errors.restAuthenticationRequired();

function isUser(p: Principal): boolean {
  return p.type === 'user';
}

export const publicAccess: AccessLevel = { level: 'public', check: (_ctx, next) => next() };

/** Any authenticated user; guests only where the route says so (they may create and upload Transfers). */
export function users(opts: { guests?: boolean } = {}): AccessLevel {
  return {
    level: 'users',
    check: (ctx, next) => {
      const p = ctx.state.principal;
      if (isUser(p) || (opts.guests && p.type === 'guest')) return next();
      if (p.type === 'anonymous') throw authRequired();
      throw Errors.restAccessForbidden();
    },
  };
}

export const admin: AccessLevel = {
  level: 'admin',
  check: (ctx, next) => {
    const p = ctx.state.principal;
    if (isAdmin(p)) return next();
    if (p.type === 'anonymous') throw authRequired();
    throw Errors.restAdminRequired();
  },
};

/**
 * Owner level: the loader finds the resource (throwing its not-found error), then the principal must own it.
 * An admin owns everything. The loaded resource is left on ctx.state.resource for the handler.
 */
export function owner<T>(load: (ctx: FerryContext) => Owned<T> | Promise<Owned<T>>, opts: OwnerOptions): AccessLevel {
  return {
    level: 'owner',
    check: async (ctx, next) => {
      const p = ctx.state.principal;
      const keyArg = parseQuery(ctx, keyQuery).key;
      const keyAllowed =
        opts.chunkKey && keyArg !== undefined && ctx.state.services.settings.get().chunk_upload_security === 'key';
      if (p.type === 'anonymous' && !keyAllowed) throw authRequired();
      const owned = await load(ctx);
      if (!ownsResource(p, owned) && !(keyAllowed && (await chunkKeyMatches(ctx, owned, keyArg!, opts)))) {
        if (p.type === 'anonymous') throw authRequired();
        throw opts.notFound();
      }
      ctx.state.resource = owned.resource;
      await next();
    },
  };
}

export function ownsResource(p: Principal, owned: Owned<unknown>): boolean {
  if (isAdmin(p)) return true;
  if (p.type === 'user') return p.user.id === owned.ownerId;
  if (p.type === 'guest') return owned.guestId != null && owned.guestId === p.guest.id;
  return false;
}

async function chunkKeyMatches(
  ctx: FerryContext,
  owned: Owned<unknown>,
  key: string,
  opts: OwnerOptions,
): Promise<boolean> {
  if (owned.transferId === undefined) return false;
  const keys = ctx.state.services.chunkKeys;
  if (!keys || !(await keys.matches(owned.transferId, key))) return false;
  return opts.chunkKey instanceof Function ? opts.chunkKey(ctx, owned) : true;
}
