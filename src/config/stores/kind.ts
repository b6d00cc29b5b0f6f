import type { Check } from '../checks';

/**
 * What the config knows of one kind of file store (docs/architecture.md, "How to add … A store"): the keys of
 * its `storage` block beside `type`, their checks and defaults, rules between them, secrets from the
 * environment, the start-up line naming where files go, and where the files live for `ferry backup`. The store
 * itself is built from the checked block by the kind's factory in src/storage/kinds/.
 */
export interface StoreSchema<C extends { type: string }> {
  /** The checks of the block's keys other than `type`; a key not listed is refused. */
  fields: { [K in Exclude<keyof C, 'type'>]-?: Check };
  required: Exclude<keyof C, 'type'>[];
  /** Filled in under what the file gives. */
  defaults: Partial<Omit<C, 'type'>>;
  /** Rules checked on the merged block (after the environment's values); each problem starts with "storage:". */
  problems?(c: C): string[];
  /** The block with the values the environment gives (secrets that need not sit in the file). */
  fromEnv?(block: Unchecked<C>, env: NodeJS.ProcessEnv): Unchecked<C>;
  /** Where files go, for the start-up log ("files: …"). */
  describe(c: C, dataDir: string): string;
  /**
   * Where the file data lives when it is not under data_dir (e.g. `in the S3 bucket b (prefix "p/")`), so that
   * `ferry backup --files` refuses rather than copy nothing; absent: the files are under data_dir/files.
   */
  outsideDataDir?(c: C): string;
}

/** A block as the file gives it, before its checks: its keys, any values. */
export type Unchecked<C> = Partial<Record<keyof C, unknown>>;

/** The config block a schema describes. */
export type BlockOf<S> = S extends StoreSchema<infer C> ? C : never;
