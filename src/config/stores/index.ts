import type { z } from 'zod';
import type { BlockOf, StoreSchema } from './kind';
import { fsStore } from './fs';
import { s3Store } from './s3';

export type { StoreSchema } from './kind';
export type { StorageFs } from './fs';
export type { StorageS3 } from './s3';

/**
 * The kinds of file store, by their `storage.type` (docs/architecture.md, "How to add … A store"): a new kind is
 * its module beside this one and a line here; its factory's line in src/storage/kinds/index.ts is then
 * required by the compiler.
 */
const STORE_SCHEMAS = {
  fs: fsStore,
  s3: s3Store,
};

/** The `storage` block of the config: one of the kinds' blocks. */
export type StorageConfig = {
  [T in keyof typeof STORE_SCHEMAS]: BlockOf<(typeof STORE_SCHEMAS)[T]>;
}[keyof typeof STORE_SCHEMAS];

type AnySchema = StoreSchema<z.ZodType<{ type: string }>>;
const schemas = new Map<string, AnySchema>(Object.entries(STORE_SCHEMAS) as [string, AnySchema][]);

/** The schema of a `storage.type`, or undefined for a type no kind has. */
export function storeSchemaOf(type: unknown): AnySchema | undefined {
  return typeof type === 'string' ? schemas.get(type) : undefined;
}

/** The known `storage.type` values, in the order problems list them. */
export function storeTypes(): string[] {
  return [...schemas.keys()];
}

/**
 * Adds a kind at run time, as src/storage/kinds/index.ts's registerStoreKind does with its factory (the
 * built-in kinds are the lines above).
 */
export function registerStoreSchema<S extends z.ZodType<{ type: string }>>(type: string, schema: StoreSchema<S>): void {
  if (schemas.has(type)) throw new Error(`the store kind "${type}" is already registered`);
  schemas.set(type, schema as unknown as AnySchema);
}

function schemaOf(c: StorageConfig): AnySchema {
  const schema = storeSchemaOf(c.type);
  if (!schema) throw new Error(`no file store of the kind "${c.type}"`);
  return schema;
}

/** The checked `storage` block with its kind's defaults filled in. */
export function storageWithDefaults(block: { type: string }): StorageConfig {
  return schemaOf(block as StorageConfig).schema.parse(block) as StorageConfig;
}

/** Where files go, for the start-up log. */
export function describeStore(c: StorageConfig, dataDir: string): string {
  return schemaOf(c).describe(c, dataDir);
}

/** Where the file data lives when not under data_dir (`ferry backup --files` refuses), else null. */
export function filesOutsideDataDir(c: StorageConfig): string | null {
  return schemaOf(c).outsideDataDir?.(c) ?? null;
}
