import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MailNotifier } from '../../src/mail/notifier';
import type { Notifier, OutgoingMessage, Tx } from '../../src/domain/ports';
import { Settings } from '../../src/config/settings';
import { defaultConfig } from '../../src/config/defaults';
import { mailEn } from '../../src/i18n/mail/en';
import { LANGS, ownTable } from '../../src/i18n';
import type { AuditEntry, Guest, Recipient, Transfer } from '../../src/domain/model';
import { AUDIT_EVENTS } from '../../src/domain/audit-events';
import { formatDay } from '../../src/i18n/format';
import { fileRecord, RECORD_TIME, recipientRecord, transferRecord } from '../helpers/domain-factories';

const NOW = RECORD_TIME;
const transfer = (over: Partial<Transfer> = {}): Transfer =>
  transferRecord({
    subject: 'Q3',
    message: 'Hi',
    options: ['email_download_complete', 'enable_recipient_email_download_complete'],
    expires: NOW + 864000,
    ...over,
  });
const file = fileRecord({ name: 'plan.pdf', size: 2_500_000, ranges: [] });
const recipient = (lang: string | null, id = 3): Recipient =>
  recipientRecord({ id, email: `r${id}@example.org`, lang });
const guest = (lang: string | null): Guest => ({
  id: 4,
  userId: 'alice',
  userEmail: 'alice@example.org',
  email: 'gus@example.net',
  token: 'G'.repeat(32),
  subject: 'Scans',
  message: 'Please',
  options: [],
  transferOptions: [],
  status: 'available',
  transferCount: 0,
  lang,
  created: NOW,
  expires: NOW + 864000,
  lastActivity: null,
  closed: null,
  errors: [],
});
const entry: AuditEntry = {
  transferId: 7,
  date: NOW,
  event: 'transfer_available',
  author: { type: 'User', id: 'alice', ip: '127.0.0.1', email: 'alice@example.org' },
  target: { type: 'Transfer', id: '7' },
};

/** What the notifier looks up through the unit of work: users' language and address, guests' language. */
interface Directory {
  userLang(userId: string): string | null;
  userEmail(userId: string): string | null;
  guestLang(guestId: number): string | null;
}

/** The mailer over a stand-in unit of work that records what is queued; `n` calls it with that unit of work. */
function notifierFor(dir: Partial<Directory> = {}, defaultLang = 'en') {
  const sent: OutgoingMessage[] = [];
  const d: Directory = { userLang: () => null, userEmail: () => 'alice@example.org', guestLang: () => null, ...dir };
  const tx = {
    mailQueue: { enqueue: async (m: OutgoingMessage) => sent.push(m) },
    users: {
      record: async (id: string) => ({ lang: d.userLang(id) }),
      emails: async (id: string) => [d.userEmail(id)].filter(Boolean),
    },
    guests: { find: async (id: number) => ({ lang: d.guestLang(id) }) },
    afterCommit: () => {},
  } as unknown as Tx;
  const cfg = { ...defaultConfig(), default_lang: defaultLang, base_url: 'https://files.example' };
  const mailer = new MailNotifier(
    new Settings(cfg),
    () => {},
    () => NOW,
  );
  const n = new Proxy({} as Bound, {
    get:
      (_t, name: keyof Notifier) =>
      (...args: unknown[]) =>
        (mailer[name] as (...a: unknown[]) => Promise<void>)(tx, ...args),
  });
  return { sent, n };
}

/** The Notifier's methods without their unit-of-work argument. */
type Bound = {
  [K in keyof Notifier]: Notifier[K] extends (tx: Tx, ...a: infer A) => Promise<void>
    ? (...a: A) => Promise<void>
    : never;
};

/** Every method of the Notifier, called once, with the languages it should pick up from its arguments. */
async function everyNotification(n: Bound, lang: string) {
  const t = transfer();
  const r = recipient(lang);
  await n.transferAvailable(t, [file], [r]);
  await n.uploadComplete(t, [file], [r]);
  await n.transferReminder(t, [file], [r]);
  await n.fileRemoved(t, file, [r]);
  await n.recipientRemoved(t, r);
  await n.transferClosed(t, [file], [r]);
  await n.transferExpired(t, [file], [r]);
  await n.downloadComplete(t, r, [file]);
  await n.auditLog(t, [entry], 'alice@example.org', lang);
  await n.guestCreated(guest(lang));
  await n.guestCreatedReceipt(guest(lang));
  await n.guestReminder(guest(lang));
  await n.guestDeleted(guest(lang));
  await n.guestExpired(guest(lang));
  await n.guestUploadStarted(guest(lang), t);
  await n.guestUploadPageAccess(guest(lang));
  await n.virusFound(t, [{ file, signature: 'Test.EICAR.UNOFFICIAL' }], true, []);
}

test('every mail text exists in every language with the same placeholders as in English', async () => {
  const placeholders = (s: string) => [...new Set(s.match(/\{\w+\}/g) ?? [])].sort().join();
  for (const name of LANGS.filter((l) => l !== 'en')) {
    const table = ownTable(name);
    for (const [key, en] of Object.entries(mailEn)) {
      assert.ok(key in table, `${name} lacks ${key}`);
      assert.is(placeholders(table[key]), placeholders(en), `${name}.${key}`);
    }
  }
});

test('every notification renders in every language: no untranslated key, no unfilled placeholder, escaped HTML', async () => {
  const subjects: Record<string, string[]> = {};
  for (const lang of LANGS) {
    // Owner mails follow the owner's language, so the directory says the same one here.
    const { sent, n } = notifierFor({ userLang: () => lang });
    await everyNotification(n, lang);
    assert.is(sent.length, 18, 'one mail per call, two for download complete (owner and recipient)');
    for (const m of sent) {
      assert.is(m.lang, lang);
      for (const part of [m.subject, m.text, m.html]) {
        assert.not.match(part, /\bmail_\w+|\{\w+\}/, `${lang}: ${m.subject}`);
      }
      assert.match(m.html, `<html lang="${lang}">`);
      assert.is(m.from, 'ferry@localhost');
    }
    subjects[lang] = sent.map((m) => m.subject);
  }
  // The translations really differ from English (a table falling back to English would pass the checks above).
  for (const lang of LANGS.filter((l) => l !== 'en')) {
    const same = subjects[lang].filter((s, i) => s === subjects.en[i]);
    assert.equal(same, [], `${lang} subjects identical to English`);
  }
});

test('language: the recipient’s, else the guest’s, else the Transfer’s, else default_lang', async () => {
  const pick = async (r: string | null, g: string | null, t: string | null, def = 'en') => {
    const { sent, n } = notifierFor({ guestLang: () => g }, def);
    await n.transferAvailable(transfer({ guestId: 4, lang: t }), [file], [recipient(r)]);
    return sent[0].lang;
  };
  assert.is(await pick('de', 'fr', 'nl'), 'de');
  assert.is(await pick(null, 'fr', 'nl'), 'fr');
  assert.is(await pick(null, null, 'nl'), 'nl');
  assert.is(await pick(null, null, null, 'fr'), 'fr');
  assert.is(await pick('de-AT', null, null), 'de', 'regional variants fall back to the base language');
  assert.is(await pick('xx', null, null, 'nl'), 'nl', 'unknown languages are skipped');
});

test('recipient mails reply to the sender and carry only that recipient’s link; a link-only recipient gets no mail', async () => {
  const { sent, n } = notifierFor();
  const other = { ...recipient(null, 9), token: 'O'.repeat(32) };
  await n.transferAvailable(transfer(), [file], [recipient(null), other, { ...recipient(null, 10), email: '' }]);
  assert.is(sent.length, 2);
  assert.is(sent[0].replyTo, 'alice@example.org');
  assert.match(sent[0].text, `https://files.example/?s=download&token=${'T'.repeat(32)}`);
  assert.not.match(sent[0].text, 'O'.repeat(32));
  assert.match(sent[0].text, 'plan.pdf (2.5\u00a0MB)');
  assert.match(sent[0].text, 'Available until 27 Mar 2030.');
});

test('dates in mails: one unambiguous format per language, the same as the pages show', async () => {
  const expected: Record<string, string> = {
    en: '27 Mar 2030',
    de: '27. März 2030',
    fr: '27 mars 2030',
    nl: formatDay(NOW + 864000, 'nl', 'UTC'),
    es: '27 mar 2030',
    it: '27 mar 2030',
    pt: '27 de mar. de 2030',
    pl: '27 mar 2030',
    cs: '27. března 2030',
    sv: '27 mars 2030',
  };
  for (const [lang, day] of Object.entries(expected)) {
    const { sent, n } = notifierFor();
    await n.transferAvailable(transfer(), [file], [recipient(lang)]);
    await n.guestCreated(guest(lang));
    assert.is(sent[0].lang, lang);
    assert.ok(sent[0].text.includes(day), `${lang}: ${sent[0].text}`);
    assert.ok(sent[1].text.includes(day), `${lang} (guest): ${sent[1].text}`);
    assert.not.match(sent[0].text + sent[1].text, /\d\d\/\d\d\/\d{4}/);
  }
});

test('links: guests get their upload page, the inviter the guests page, owners the transfers page; no token leaks', async () => {
  const { sent, n } = notifierFor();
  await n.guestCreated(guest(null));
  await n.guestCreatedReceipt(guest(null));
  await n.transferClosed(transfer(), [file], [recipient(null)]);
  assert.match(sent[0].text, `https://files.example/?s=upload&vid=${'G'.repeat(32)}`);
  assert.is(sent[0].to, 'gus@example.net');
  assert.is(sent[0].replyTo, 'alice@example.org');
  assert.match(sent[1].text, 'https://files.example/?s=guests');
  assert.is(sent[1].to, 'alice@example.org');
  assert.match(sent[2].text, 'https://files.example/?s=transfers');
  for (const m of sent.slice(1)) assert.not.match(m.text + m.html, /G{32}|T{32}/);
});

test('the audit log arrives as a table of date, event, author and target', async () => {
  const { sent, n } = notifierFor();
  await n.auditLog(
    transfer(),
    [
      entry,
      {
        ...entry,
        event: 'download_ended',
        author: { type: 'Recipient', id: '3', ip: null, email: 'r3@example.org' },
        target: { type: 'File', id: '1', name: '<b>plan</b>.pdf', size: 5 },
      },
    ],
    'alice@example.org',
    null,
  );
  const m = sent[0];
  assert.match(m.text, 'Date | Event | Author | Target');
  assert.match(
    m.text,
    /transfer available \(transfer_available\) \| User alice@example\.org \(127\.0\.0\.1\) \| Transfer #7/,
  );
  assert.match(m.text, 'download finished (download_ended) | Recipient r3@example.org | File <b>plan</b>.pdf');
  assert.match(m.html, '<th>Event</th>');
  assert.match(m.html, '<td>File &lt;b&gt;plan&lt;/b&gt;.pdf</td>');
  const { sent: de, n: nde } = notifierFor();
  await nde.auditLog(transfer(), [entry], 'alice@example.org', 'de');
  assert.match(de[0].text, 'Übertragung verfügbar (transfer_available) | User');
});

test('every audit event has a readable name in the audit-log mail', async () => {
  for (const event of AUDIT_EVENTS) {
    for (const lang of LANGS) assert.ok(`mail_event_${event}` in ownTable(lang), `${lang}: ${event}`);
  }
});

test.run();
