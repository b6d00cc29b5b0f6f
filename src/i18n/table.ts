/**
 * A translation table: key → text. Its own module so the English tables can name it without importing
 * src/i18n/index.ts, which imports them (no import circle: docs/architecture.md).
 */
export type Table = Record<string, string>;
