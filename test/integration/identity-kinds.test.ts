import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { checkConfig, validateConfig } from '../../src/config/validate';
import { loadConfig } from '../../src/config/load';
import { Errors } from '../../src/domain/errors';
import { zArrayOf, zStr } from '../../src/config/zod-checks';
import { entrySchema } from '../../src/auth/providers/entry';
import type { IdentityKind } from '../../src/auth/providers/kind';
import { identityKinds, registerIdentityKind } from '../../src/auth/providers/registry';
import { runCli } from '../../src/cli/program';
import { startTestServer } from '../helpers/server';
import { capturingLogger } from '../helpers/session';
import { tempDir } from '../helpers/temp-dir';

// docs/architecture.md, "How to add … An identity provider": a kind is its folder under src/auth/providers/ and a
// line of the registry. The first test shows no other module of src/ names a kind; the others add a kind made up
// here, as a module adding a new protocol would, and nothing else in ferry is changed for the config, the
// environment, `ferry config check`, the CLI, the request log, the login routes and sign-in to take it.

const ROOT = path.resolve(__dirname, '../..');
const KINDS_DIR = path.join(ROOT, 'src/auth/providers');
const REGISTRY = 'src/auth/providers/registry.ts';

/** Every source file of src/, by its path from the repository's root. */
function sourceFiles(dir = path.join(ROOT, 'src')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(e.name) ? [path.relative(ROOT, full)] : [];
  });
}

/**
 * The kinds' names that are everyday words (local accounts, HTTP headers) are looked for where they would be a
 * kind's type: compared with a `type`, a `case`, or a `type:` value. The others are looked for anywhere, comments
 * included, in any case.
 */
const EVERYDAY_WORDS = new Set(['local', 'header']);
/** Words that hold a kind's name but are not about it: FileSender's database column that `ferry import` reads. */
const NOT_THE_KIND = [/saml_user_identification_uid/g];

function namingPattern(kind: string): RegExp {
  if (!EVERYDAY_WORDS.has(kind)) return new RegExp(kind, 'i');
  const q = `['"\`]${kind}['"\`]`;
  return new RegExp(`type\\s*[!=]==?\\s*${q}|${q}\\s*[!=]==?|case\\s+${q}|type:\\s*${q}`, 'i');
}

test('a kind of identity provider is named only in its own folder and the registry', () => {
  const kinds = fs
    .readdirSync(KINDS_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(KINDS_DIR, e.name, 'index.ts')))
    .map((e) => e.name);
  // Each folder is a kind the registry has, under the folder's name.
  const registered = identityKinds().map((k) => k.type);
  for (const kind of kinds) assert.ok(registered.includes(kind), `${kind} is not in ${registered.join(', ')}`);
  // The patterns find what a kind switch looks like (the old `p.type === 'local'` and the like).
  for (const [kind, line] of [
    ['local', "if (p.type === 'local') return;"],
    ['header', "case 'header':"],
    ['header', "{ type: 'header', id: 'proxy' }"],
    ['oidc', '// an OIDC callback'],
  ])
    assert.ok(namingPattern(kind).test(line), `${kind} not found in ${line}`);

  const found: string[] = [];
  for (const file of sourceFiles()) {
    let text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const word of NOT_THE_KIND) text = text.replace(word, '');
    for (const kind of kinds) {
      if (file === REGISTRY || file.startsWith(`src/auth/providers/${kind}/`)) continue;
      const m = namingPattern(kind).exec(text);
      if (m) found.push(`${file}: "${m[0]}" (line ${text.slice(0, m.index).split('\n').length})`);
    }
  }
  assert.equal(found, []);
});

// A kind made up here: people named in the entry sign in with a pass phrase the environment gives.
const schema = entrySchema('passphrase', 'Pass phrase', {
  users: zArrayOf(zStr(/^[a-z]{1,16}$/, 'a user name')),
  domain: zStr(/^[a-z.]+$/, 'a mail domain').default('example.org'),
  phrase: zStr(/^.{8,}$/, 'a pass phrase of 8 characters or more')
    .nullable()
    .default(null),
});
type SpPassphrase = z.output<typeof schema>;
const built: SpPassphrase[] = [];
const passphraseKind: IdentityKind<typeof schema> = {
  type: 'passphrase',
  schema,
  secrets: ['phrase'],
  secretQueryArgs: ['phrase_hint'],
  fromEnv: (envId, env) => {
    const phrase = env[`FERRY_PASSPHRASE_${envId}`];
    return phrase ? { phrase } : {};
  },
  problems: (p) => (p.users.length === 0 ? [`auth.sp (${p.id}): name at least one user`] : []),
  startupProblems: (p) => (p.phrase ? [] : [`auth.sp (${p.id}) phrase: none given (FERRY_PASSPHRASE_<ID>)`]),
  commands: (program, io) => {
    program
      .command('passphrase')
      .argument('<phrase>')
      .action((phrase: string) => {
        if (phrase.length < 8) throw io.usage('a pass phrase of 8 characters or more');
        io.out(`${phrase.length} characters: long enough`);
      });
  },
  create: (cfg) => {
    built.push(cfg);
    return {
      id: cfg.id,
      type: cfg.type,
      label: cfg.label,
      style: 'password',
      localAccounts: false,
      async checkPassword(userId, password) {
        if (!cfg.phrase || !cfg.users.includes(userId) || password !== cfg.phrase)
          throw Errors.restAuthenticationRequired('login');
        return { uid: userId, emails: [`${userId}@${cfg.domain}`], displayName: null, admin: false };
      },
    };
  },
};
registerIdentityKind(passphraseKind);

test('a registered kind: its entry is checked by its schema, with the common keys, its rules and the key paths', () => {
  assert.equal(checkConfig({ auth: { sp: { type: 'passphrase', users: ['ann'] } } }), []);
  assert.equal(checkConfig({ auth: { sp: [{ type: 'passphrase' }] } }), ['auth.sp[0].users: required']);
  assert.equal(
    checkConfig({ auth: { sp: { type: 'passphrase', users: ['Ann', 5], domain: 'x y', colour: 1, label: 7 } } }),
    [
      'auth.sp.label: expected a string, got number 7',
      'auth.sp.users[0]: a user name, got "Ann"',
      'auth.sp.users[1]: expected a string, got number 5',
      'auth.sp.domain: a mail domain, got "x y"',
      'auth.sp.colour: unknown key',
    ],
  );
  assert.equal(checkConfig({ auth: { sp: { type: 'passphrase', users: [] } } }), [
    'auth.sp (passphrase): name at least one user',
  ]);
  const unknown = checkConfig({ auth: { sp: { type: 'kerberos' } } }).join('\n');
  assert.match(unknown, 'auth.sp.type: must be one of');
  assert.match(unknown, '"passphrase", got "kerberos"');
  // The common keys and their rules hold for it as for every kind.
  assert.match(
    checkConfig({
      auth: { sp: [{ type: 'passphrase', users: ['ann'], link_accounts_of: ['local'] }, { type: 'local' }] },
    }).join('\n'),
    'auth.sp (passphrase): link_accounts_of names "local"',
  );
  // The config keeps what the file says; the kind's defaults are filled in where it is used.
  const c = validateConfig({ auth: { sp: { type: 'passphrase', users: ['ann'] } } }, 't');
  assert.equal(c.auth.sp, { type: 'passphrase', users: ['ann'] } as unknown as typeof c.auth.sp);
});

/** A config file holding `sp` as auth.sp. */
function configFile(sp: unknown): string {
  const dir = tempDir();
  const file = path.join(dir, 'ferry.json');
  fs.writeFileSync(file, JSON.stringify({ data_dir: path.join(dir, 'data'), auth: { sp } }));
  return file;
}

/** `ferry <args>` in this process: exit code, standard output and error. */
async function ferry(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const code = await runCli(args, { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => '' });
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    // Each variable back as it was before (unset, or its earlier value).
    for (const k of Object.keys(env))
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
  }
}

test('a registered kind: its secret comes from the environment, ferry config check hides it and runs its start-up check', async () => {
  const file = configFile({ type: 'passphrase', id: 'team-a', users: ['ann'] });
  const loaded = loadConfig(file, { FERRY_PASSPHRASE_TEAM_A: 'correct horse' }).config;
  assert.is((loaded.auth.sp as unknown as SpPassphrase).phrase, 'correct horse');
  // A value from the environment is checked as the file's would be, under its key.
  assert.throws(() => loadConfig(file, { FERRY_PASSPHRASE_TEAM_A: 'short' }), /auth\.sp\.phrase: a pass phrase/);

  const shown = await ferry(['config', 'check', '--json', '-c', file], { FERRY_PASSPHRASE_TEAM_A: 'correct horse' });
  assert.is(shown.code, 0, shown.err);
  assert.equal(JSON.parse(shown.out).auth.sp, { type: 'passphrase', id: 'team-a', users: ['ann'], phrase: '(set)' });
  assert.not.match(shown.out, 'correct horse');
  const missing = await ferry(['config', 'check', '-c', file]);
  assert.is(missing.code, 1);
  assert.match(missing.err, 'auth.sp (team-a) phrase: none given');
});

test('a registered kind: its own command is one of the CLI', async () => {
  assert.equal(await ferry(['passphrase', 'correct horse']), { code: 0, out: '13 characters: long enough', err: '' });
  assert.equal(await ferry(['passphrase', 'short']), {
    code: 1,
    out: '',
    err: 'error: a pass phrase of 8 characters or more',
  });
});

test('a registered kind: the server builds it, the login page shows its form, and its people sign in through it', async () => {
  const { log, lines } = capturingLogger();
  const sp = [
    { type: 'passphrase', id: 'team-a', label: 'Team A', users: ['ann'], phrase: 'correct horse' },
    { type: 'local' },
  ];
  const s = await startTestServer({ auth: { sp } }, { log });
  try {
    assert.equal(built.at(-1), {
      type: 'passphrase',
      id: 'team-a',
      label: 'Team A',
      link_accounts_of: [],
      adopt_unattributed: false,
      users: ['ann'],
      domain: 'example.org',
      phrase: 'correct horse',
    });
    const page = await s.request('GET', '/login', { headers: { Accept: 'text/html' } });
    assert.match(page.text, /<form class="login-form" method="post" action="\/login\/team-a" data-provider="team-a">/);
    assert.match(page.text, /<h2>Team A<\/h2>/);

    const wrong = await s.request('POST', '/login/team-a', { json: { user_id: 'ann', password: 'wrong horse' } });
    assert.is(wrong.status, 401);
    // POST /login asks every password provider: a user with no local account goes to this one.
    const r = await s.request('POST', '/login?phrase_hint=horse', {
      json: { user_id: 'ann', password: 'correct horse' },
    });
    assert.is(r.status, 200, r.text);
    assert.is(r.json.user_id, 'ann');
    const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0];
    const me = await s.request('GET', '/user', { headers: { Cookie: cookie } });
    assert.is(me.json.id, 'ann');
    assert.equal(me.json.email, ['ann@example.org']);
    // Its answers' secret query arguments never reach the log.
    const logged = lines.filter((l) => l.includes('/login?')).join('\n');
    assert.match(logged, 'phrase_hint=***');
    assert.not.match(logged, 'horse');
  } finally {
    await s.close();
  }
});

test.run();
