import type { IdentityProvider } from '../identity-provider';
import { IdentityProviders } from '../identity-providers';
import type { ProviderDeps } from './deps';
import { headerKind } from './header';
import type { EntryOf, IdentityKind, InputOf } from './kind';
import { ldapKind } from './ldap';
import { localKind } from './local';
import { oidcKind } from './oidc';
import { samlKind } from './saml';

/**
 * The kinds of identity provider ferry has, by their `auth.sp[].type` (docs/architecture.md, "How to add … An
 * identity provider"): a new kind is its folder beside this file (its entry's schema, its rules and secrets,
 * its provider) and a line here. Nothing else names a kind: validation, the environment, `ferry config check`,
 * the login routes and sign-in ask the kind (test/integration/identity-kinds.test.ts).
 */
const IDENTITY_KINDS = {
  local: localKind,
  header: headerKind,
  oidc: oidcKind,
  ldap: ldapKind,
  saml: samlKind,
};

type BuiltIn = (typeof IDENTITY_KINDS)[keyof typeof IDENTITY_KINDS];
/** One entry of `auth.sp` once checked, its kind's defaults filled in. */
export type SpConfig = EntryOf<BuiltIn>;
/** One entry of `auth.sp` as the file gives it. */
export type SpInput = InputOf<BuiltIn>;

/** Any kind, as the registry holds it (a kind added at run time included). */
type AnyKind = IdentityKind<IdentityKind['schema']>;
const kinds = new Map<string, AnyKind>(Object.entries(IDENTITY_KINDS) as [string, AnyKind][]);

/** The kind of an `auth.sp[].type`, or undefined for a type no kind has. */
export function identityKindOf(type: unknown): AnyKind | undefined {
  return typeof type === 'string' ? kinds.get(type) : undefined;
}

/** Every kind, in the order problems list them. */
export function identityKinds(): AnyKind[] {
  return [...kinds.values()];
}

/**
 * Adds a kind at run time (the built-in kinds are the lines above): its schema, rules and provider, under its
 * `type`. A test adds a made-up kind this way and touches nothing else.
 */
export function registerIdentityKind<S extends IdentityKind['schema']>(kind: IdentityKind<S>): void {
  if (kinds.has(kind.type)) throw new Error(`the identity provider kind "${kind.type}" is already registered`);
  kinds.set(kind.type, kind as unknown as AnyKind);
}

function kindOf(type: string): AnyKind {
  const kind = kinds.get(type);
  if (!kind) throw new Error(`no identity provider of the kind "${type}"`);
  return kind;
}

/** `auth.sp` as a list, each entry checked and completed with its kind's defaults (the config keeps the file's). */
export function providerConfigs(sp: SpInput | SpInput[]): SpConfig[] {
  return (Array.isArray(sp) ? sp : [sp]).map((e) => kindOf(e.type).schema.parse(e) as SpConfig);
}

/** Every provider the config's `auth.sp` lists, built by its kind in its order. */
export async function buildIdentityProviders(
  config: { auth: { sp: SpInput | SpInput[] } },
  deps: ProviderDeps,
): Promise<IdentityProviders> {
  const list: IdentityProvider[] = [];
  for (const c of providerConfigs(config.auth.sp)) list.push(await kindOf(c.type).create(c, deps));
  return new IdentityProviders(list);
}
