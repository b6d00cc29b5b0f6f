import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type TextKey, textKey, translate, translations } from '../../src/i18n';
import { translator } from '../../web/lib/i18n';
import { errorSentence, type PageT } from '../../src/http/web/layout';

// A text's key is a type made from the English tables (src/i18n/keys.ts): a misspelt key fails `npm run
// typecheck` on the server's side (translate, the pages' pageT, the mails' tr) and in the browser code (web/'s
// Translate). The `@ts-expect-error` lines below are part of the test: if a wrong key ever typechecks again,
// the directive is unused and the typecheck fails. What is made at run time goes through one checked function.

test('a literal key is checked by the compiler, on the server and in the pages', () => {
  assert.is(translate('en', 'download'), 'Download');
  // @ts-expect-error not a key of any English table
  assert.is(translate('en', 'no.such.key'), 'no.such.key');

  const t = translator(translations('fr'), 'fr');
  assert.is(t('download'), 'Télécharger');
  // @ts-expect-error not a key of any English table
  assert.is(t('no.such.key'), 'no.such.key');
  // A counted text is looked up by its base, which is a key too.
  const counted: TextKey = 'ui_n_files';
  assert.is(t(counted, { count: 2 }), translate('fr', 'ui_n_files', { count: 2 }));
});

test('a key made at run time is a TextKey only once checked against the table', () => {
  assert.is(textKey('transfer_not_found'), 'transfer_not_found');
  assert.is(textKey('ui_n_files'), 'ui_n_files');
  assert.is(textKey('no_such_error_id'), null);
  const t = translator(translations('en'));
  assert.is(t.known('audit_download_refused'), 'audit_download_refused');
  assert.is(t.known('audit_no_such_event'), null);
});

test('an error id without a text reads as the generic sentence naming it, on the server as in the pages', () => {
  const t: PageT = (key, vars) => translate('en', key, vars);
  assert.is(errorSentence(t, 'transfer_not_found'), translate('en', 'transfer_not_found'));
  assert.is(errorSentence(t, 'no_such_error_id'), translate('en', 'ui_error_with_id', { id: 'no_such_error_id' }));
});

test('the server counts as the pages do: the plural form of the language', () => {
  assert.is(
    translate('en', 'ui_n_files', { count: 1 }),
    translator(translations('en'), 'en')('ui_n_files', { count: 1 }),
  );
  assert.is(
    translate('pl', 'ui_n_files', { count: 5 }),
    translator(translations('pl'), 'pl')('ui_n_files', { count: 5 }),
  );
  assert.is.not(translate('en', 'ui_n_files', { count: 1 }), translate('en', 'ui_n_files', { count: 2 }));
});

test.run();
