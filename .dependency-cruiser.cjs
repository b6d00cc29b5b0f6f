// What each folder of src/ and web/ may import: the table of docs/architecture.md, "What each folder may import".
// `npm run lint` runs it and fails on any import no row allows. Rules are per top folder, so a sub-folder added
// later falls under its parent's row, and a new top folder matches no row: its first import fails the lint until
// a row (here and in the table) says what it may use.

/** One row: files under `from` may import their own folder and the listed places (none: only itself). */
function row(from, may) {
  if (may.length === 0) return { from: { path: `^${from}` }, to: { path: '^$' } };
  return { from: { path: `^${from}` }, to: { path: `^(${may.map((m) => m.replace(/\./g, '\\.')).join('|')})` } };
}
const src = (...names) => names.map((n) => (n.endsWith('.ts') || n.endsWith('.tsx') ? `src/${n}$` : `src/${n}/`));
const web = (...names) => names.map((n) => (n.endsWith('.ts') || n.endsWith('.tsx') ? `web/${n}$` : `web/${n}/`));

// Pure code the pages and the terminal client may share with the server: no adapter, no framework, no driver.
const PURE = src('domain', 'shared', 'shared-crypto', 'i18n');

module.exports = {
  allowedSeverity: 'error',
  allowed: [
    // Every file may import its own top folder, Node's built-ins and the packages it depends on (narrowed below).
    { from: { path: '^(src|web)/([^/]+)/' }, to: { path: '^$1/$2/' } },
    { from: { path: '^src/' }, to: { dependencyTypes: ['core'] } },
    { from: { path: '^(src|web)/' }, to: { dependencyTypes: ['npm', 'npm-dev'] } },

    // The rules, and what the world must give them (src/domain/ports).
    row('src/domain/', src('shared-crypto', 'shared')),
    // Adapters: each implements ports of the domain.
    // The identity provider kinds' entries of auth.sp: each kind's schema is in its folder (src/auth/providers/).
    row('src/config/', [...src('domain'), 'src/auth/providers/']),
    row('src/db/', src('domain', 'config', 'util', 'shared')),
    row('src/storage/', src('domain', 'config', 'util', 'shared')),
    row('src/antivirus/', src('domain')),
    row('src/mail/', src('domain', 'config', 'i18n', 'util', 'shared', 'log.ts')),
    row('src/auth/', src('domain', 'config', 'util', 'shared')),
    row('src/http/', [
      ...src('domain', 'auth', 'config', 'i18n', 'util', 'archive', 'mail', 'shared', 'shared-crypto'),
      ...src('services.ts', 'log.ts'),
    ]),
    // Shared helpers, below everything.
    row('src/util/', []),
    row('src/i18n/', []),
    row('src/shared/', src('shared-crypto', 'util')),
    row('src/shared-crypto/', src('shared')),
    row('src/archive/', src('shared', 'util')),
    row('src/service/', []),
    // The terminal client talks to a server over HTTP only, never to its services.
    row('src/client/', src('shared', 'shared-crypto', 'util')),
    // `ferry backup`/`restore` work on a data directory's files, not through the services.
    row('src/backup/', [...src('db', 'storage', 'shared-crypto', 'util'), ...src('version.ts')]),
    // The commands: anything in src/ (app.ts loaded on use).
    row('src/cli/', ['src/']),
    // The composition root, the entry points and the few files directly in src/.
    row('src/app\\.ts$', ['src/']),
    // The capabilities it is composed of: each builds concrete parts (adapters) and hands them to the services.
    row(
      'src/compose/',
      src(
        'domain',
        'db',
        'storage',
        'antivirus',
        'mail',
        'auth',
        'config',
        'http',
        'util',
        'services.ts',
        'log.ts',
        'version.ts',
      ),
    ),
    row('src/main\\.ts$', src('cli')),
    row('src/launcher\\.ts$', src('version.ts')),
    row('src/services\\.ts$', [...src('domain', 'auth', 'config', 'util'), ...src('log.ts')]),
    row('src/(log|version)\\.ts$', []),

    // The browser code: its own folders, and from src/ only pure code (no Node, no server).
    row('web/lib/', [...src('i18n', 'shared', 'shared-crypto')]),
    row('web/e2ee/', [...PURE]),
    row('web/upload/', [...web('lib', 'e2ee'), ...PURE]),
    row('web/components/', [...web('lib', 'upload', 'e2ee'), ...PURE]),
    row('web/pages/', [...web('lib', 'upload', 'e2ee', 'components'), ...PURE]),
    row('web/[^/]+\\.tsx?$', ['web/']),
    // The REST answers' shapes, as the server's presenters build them: types only, erased from the bundle.
    { from: { path: '^web/' }, to: { path: '^src/http/presenters/wire\\.ts$', dependencyTypes: ['type-only'] } },
    // The request bodies the routes' schemas take, the same way.
    { from: { path: '^web/' }, to: { path: '^src/http/request-bodies\\.ts$', dependencyTypes: ['type-only'] } },
  ],
  forbidden: [
    {
      name: 'domain-uses-no-package',
      comment: 'The domain imports no framework and no driver: only itself, shared-crypto and Node built-ins.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'web-uses-no-node',
      comment: 'The pages run in a browser: no Node built-in.',
      severity: 'error',
      from: { path: '^web/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'shared-uses-no-node',
      comment: 'What the pages share with the server and the terminal client runs in a browser too: no Node built-in.',
      severity: 'error',
      from: { path: '^src/(shared|shared-crypto)/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'src-uses-no-dev-package',
      comment: 'What the server or the client runs is a dependency, not a devDependency.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      comment:
        'No import circle, type-only ones included: a circle makes load order matter and hides which module is below which (docs/architecture.md).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    progress: { type: 'none' },
  },
};
