// The pages' formats live with the translations (src/i18n/format.ts), so that the browser code reaches them
// without importing the HTTP layer (docs/architecture.md, "What each folder may import").
export * from '../../i18n/format';
