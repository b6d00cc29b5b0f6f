import type { Command } from 'commander';
import type { z } from 'zod';
import type { IdentityProvider } from '../identity-provider';
import type { ProviderDeps } from './deps';

/**
 * What one kind of identity provider is (docs/architecture.md, "How to add … An identity provider"): the
 * schema of its `auth.sp` entry (common keys, its own, their checks and defaults), the rules of its block, its
 * secrets and the environment variables that may give them, and how to build its provider. Validation, the
 * environment, `ferry config check`, the login routes and the composition root ask the kind, never its name.
 */
export interface IdentityKind<S extends z.ZodType<{ type: string; id: string }> = z.ZodType<EntryBase>> {
  /** Its `auth.sp[].type`. */
  readonly type: string;
  /** The entry: `type`, the common keys (src/auth/providers/entry.ts) and its own; a key not in it is refused. */
  readonly schema: S;
  /** At most one entry of this kind in `auth.sp`. */
  readonly single?: boolean;
  /**
   * Its people sign in to local accounts (`ferry user add`): its type is then also reserved as the id of its
   * entry (the owner recorded on local accounts, src/domain/account-owners.ts), and no entry links to it.
   */
  readonly localAccounts?: boolean;
  /** Keys `ferry config check --json` shows as "(set)", never as their value. */
  readonly secrets?: readonly string[];
  /**
   * Values the environment gives the entry (secrets that need not sit in the file), before its checks; `envId`
   * is the entry's id in capitals, "-" as "_" (e.g. FERRY_<KIND>_<ID>_SECRET).
   */
  fromEnv?(envId: string, env: NodeJS.ProcessEnv): Record<string, unknown>;
  /** Rules between the keys of its checked entry (defaults filled in); each problem starts "auth.sp (<id>):". */
  problems?(entry: z.output<S>): string[];
  /**
   * What `ferry config check` and the start find wrong outside the file (a key file that cannot be read), each
   * problem starting "auth.sp (<id>) <key>:"; the start stops on the same problem when it builds the provider.
   */
  startupProblems?(entry: z.output<S>): string[];
  create(entry: z.output<S>, deps: ProviderDeps): IdentityProvider | Promise<IdentityProvider>;
  /** Query arguments of the identity provider's answers that carry secrets: the request log masks them. */
  readonly secretQueryArgs?: readonly string[];
  /** Its own commands (e.g. `ferry <kind> keygen`), added to the CLI's (src/cli/program.ts). */
  commands?(program: Command, io: KindCommandIO): void;
}

/** What a kind's commands get of the CLI. */
export interface KindCommandIO {
  out(text: string): void;
  /** The error for a wrong argument: its message on one line, exit code 1 (docs/architecture.md, Command line). */
  usage(message: string): Error;
}

/** What every entry has once checked (src/auth/providers/entry.ts). */
export interface EntryBase {
  type: string;
  id: string;
  label: string;
  link_accounts_of: string[];
  adopt_unattributed: boolean;
}

/** The checked entry of a kind. */
export type EntryOf<K> = K extends IdentityKind<infer S> ? z.output<S> : never;
/** An entry as the file gives it: its type, and any of its kind's keys (the rest from the defaults). */
export type InputOf<K> = K extends IdentityKind<infer S> ? z.input<S> : never;
