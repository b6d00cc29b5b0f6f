import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HEADER_SP, asUser } from '../helpers/server';
import { serverWithSink } from '../helpers/mail-server';
import { addressOf } from '../helpers/mail';
import { LANGUAGE_NAMES } from '../../src/i18n/languages';
import { ownTable } from '../../src/i18n';

// The browser's Accept-Language picks each shipped language for the pages, the error pages, GET /lang and the
// mails a request sends: a Polish browser gets Polish pages and its guests Polish invitations.

const { s, sink } = serverWithSink(test, (sink) => ({
  ...HEADER_SP,
  default_lang: 'en',
  mail: { transport: sink.url, from: 'ferry@files.example' },
}));

/** What browsers send, regional variants and weights included, and the page's first words in that language. */
const BROWSERS: [header: string, lang: string, skipLink: string][] = [
  ['es-ES,es;q=0.9,en;q=0.5', 'es', 'Ir al contenido'],
  ['it-CH', 'it', 'Vai al contenuto'],
  ['pt-PT,pt;q=0.9', 'pt', 'Saltar para o conteúdo'],
  ['ja, pl;q=0.8, en;q=0.1', 'pl', 'Przejdź do treści'],
  ['cs', 'cs', 'Přejít na obsah'],
  ['sv-FI, en;q=0.1', 'sv', 'Hoppa till innehållet'],
  ['fr-BE', 'fr', 'Aller au contenu'],
  ['de-AT', 'de', 'Zum Inhalt springen'],
  ['nl-BE', 'nl', 'Naar de inhoud'],
  ['en-US', 'en', 'Skip to content'],
];

test('Accept-Language picks every shipped language for the page; the picker names all ten, each in itself', async () => {
  for (const [header, lang, skip] of BROWSERS) {
    const r = await s.request('GET', '/', { headers: { ...asUser('alice'), 'Accept-Language': header } });
    assert.is(r.status, 200);
    assert.match(r.text, `<html lang="${lang}">`, header);
    assert.match(r.text, skip, `${header}: the skip link`);
    assert.match(r.text, new RegExp(`<option value="${lang}" selected>`), `${header}: the picker shows ${lang}`);
    for (const [code, name] of LANGUAGE_NAMES)
      assert.match(r.text, `<option value="${code}"${code === lang ? ' selected' : ''}>${name}</option>`);
  }
});

test('GET /lang follows Accept-Language: the browser code gets the texts of each language', async () => {
  for (const [header, lang] of BROWSERS) {
    const r = await s.request('GET', '/lang', { headers: { 'Accept-Language': header } });
    assert.is(r.status, 200);
    assert.is(r.json.lang_name, LANGUAGE_NAMES.find(([c]) => c === lang)![1], header);
    assert.is(r.json.ui_send, ownTable(lang).ui_send ?? ownTable('en').ui_send, header);
    assert.is(r.json.ui_n_files_one, ownTable(lang).ui_n_files_one, header);
  }
  const pl = await s.request('GET', '/lang', { headers: { 'Accept-Language': 'pl' } });
  assert.equal(
    [pl.json.ui_n_files_one, pl.json.ui_n_files_few, pl.json.ui_n_files_many],
    ['{count} plik', '{count} pliki', '{count} plików'],
  );
});

test('an error page a user meets (a dead invitation link) speaks the browser’s language', async () => {
  const expected: Record<string, RegExp> = {
    es: /Este enlace de invitación no es válido/,
    it: /Questo link di invito non è \(più\) valido/,
    pt: /Esta ligação de convite não é/,
    pl: /Ten link z zaproszeniem jest nieważny/,
    cs: /Tento odkaz s pozvánkou není \(už\) platný/,
    sv: /Den här inbjudningslänken är inte \(längre\) giltig/,
  };
  for (const [lang, text] of Object.entries(expected)) {
    const page = await s.request('GET', '/?s=upload&vid=no-such-token', {
      headers: { Accept: 'text/html', 'Accept-Language': lang },
    });
    assert.is(page.status, 401);
    assert.match(page.text, `<html lang="${lang}">`);
    assert.match(page.text, text, lang);
  }
});

test('an invitation sent from a browser in each new language reaches the guest in that language', async () => {
  const langs = ['es', 'it', 'pt', 'pl', 'cs', 'sv'];
  for (const [i, lang] of langs.entries()) {
    const r = await s.request('POST', '/guest', {
      headers: { ...asUser('alice'), 'Accept-Language': `${lang};q=0.9, en;q=0.1` },
      json: { recipient: `guest${i}@example.org`, from: 'alice@example.org', subject: 'Scans' },
    });
    assert.is(r.status, 201, r.text);
  }
  const mails = await sink.waitFor(langs.length);
  const byTo = Object.fromEntries(mails.map((m) => [addressOf(m.to), m]));
  for (const [i, lang] of langs.entries()) {
    const m = byTo[`guest${i}@example.org`];
    assert.ok(m, `mail to guest${i} (${lang})`);
    assert.is(m.headers.get('content-language'), lang);
    assert.is(
      m.subject,
      `${ownTable(lang).mail_guest_created_subject.replace('{sender}', 'alice@example.org')}: Scans`,
    );
  }
  assert.is(byTo['guest3@example.org'].subject, 'alice@example.org zaprasza Cię do wysłania plików: Scans');
  assert.is(byTo['guest4@example.org'].subject, 'alice@example.org vás zve k odeslání souborů: Scans');
});

test.run();
