import type { z } from 'zod';
import { registerStoreSchema, type StorageConfig, type StoreSchema } from '../../config/stores';
import type { FileStore } from '../../domain/ports';
import { fsFactory } from './fs';
import type { StoreDeps, StoreFactory } from './kind';
import { s3Factory } from './s3';

export type { StoreDeps, StoreFactory } from './kind';

/**
 * The factory of each kind of store (docs/architecture.md, "How to add … A store"): a line per kind of
 * src/config/stores/index.ts, which the compiler requires.
 */
const STORE_FACTORIES: { [T in StorageConfig['type']]: StoreFactory<Extract<StorageConfig, { type: T }>> } = {
  fs: fsFactory,
  s3: s3Factory,
};

const factories = new Map<string, StoreFactory<never>>(Object.entries(STORE_FACTORIES));

/** The file store of config.storage, built by its kind's factory. */
export function openFileStore(config: StorageConfig, deps: StoreDeps): Promise<FileStore> {
  const factory = factories.get(config.type) as StoreFactory<StorageConfig> | undefined;
  if (!factory) throw new Error(`no file store of the kind "${config.type}"`);
  return factory(config, deps);
}

/**
 * Adds a kind at run time: its schema (what the config accepts for it) and its factory, under one `type`. The
 * built-in kinds are the lines above and in src/config/stores/index.ts.
 */
export function registerStoreKind<S extends z.ZodType<{ type: string }>>(
  type: string,
  schema: StoreSchema<S>,
  factory: StoreFactory<z.output<S>>,
): void {
  registerStoreSchema(type, schema);
  factories.set(type, factory as StoreFactory<never>);
}
