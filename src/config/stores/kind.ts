import type { z } from 'zod';

/**
 * What the config knows of one kind of file store (docs/architecture.md, "How to add … A store"): the schema of
 * its `storage` block in zod (`type`, its keys, their checks and defaults: src/config/zod-checks.ts), rules
 * between them, secrets from the environment, the start-up line naming where files go, and where the files
 * live for `ferry backup`. The store itself is built from the checked block by the kind's factory in
 * src/storage/kinds/.
 */
export interface StoreSchema<S extends z.ZodType<{ type: string }>> {
  /** The block: `type` and its keys (a key not in it is refused), with their defaults. */
  schema: S;
  /** Rules checked on the merged block (after the environment's values); each problem starts with "storage:". */
  problems?(c: z.output<S>): string[];
  /** The block with the values the environment gives (secrets that need not sit in the file). */
  fromEnv?(block: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown>;
  /** Where files go, for the start-up log ("files: …"). */
  describe(c: z.output<S>, dataDir: string): string;
  /**
   * Where the file data lives when it is not under data_dir (e.g. `in the S3 bucket b (prefix "p/")`), so that
   * `ferry backup --files` refuses rather than copy nothing; absent: the files are under data_dir/files.
   */
  outsideDataDir?(c: z.output<S>): string;
}

/** The config block a schema describes. */
export type BlockOf<K> = K extends StoreSchema<infer S> ? z.output<S> : never;
