/** The file store port lives with the domain (src/domain/ports/file-store.ts); the filesystem adapter implements it. */
export type { FileStore, PositionalReader } from '../domain/ports';
