/**
 * The languages ferry ships, in the order of the language pickers, each named in itself. Pure data, also
 * bundled into the browser code (the profile page's picker), which must not carry every translation table.
 * src/i18n/index.ts holds one table per code here; test/unit/translations.test.ts checks the two agree.
 */
export const LANGUAGE_NAMES: readonly (readonly [code: string, name: string])[] = [
  ['en', 'English'],
  ['fr', 'Français'],
  ['de', 'Deutsch'],
  ['nl', 'Nederlands'],
  ['es', 'Español'],
  ['it', 'Italiano'],
  ['pt', 'Português'],
  ['pl', 'Polski'],
  ['cs', 'Čeština'],
  ['sv', 'Svenska'],
];
