import { FILE_SIZE, Init, multipart, Target, Who } from './access-world';
import { inAWeek, patternBytes } from '../helpers/upload-client';

/**
 * Every REST endpoint with an access level, the request that would succeed for an allowed principal, and the
 * level that decides who is refused. `owner` endpoints answer a non-owner like an unknown id (404 notFound).
 */
export type Level = 'admin' | 'users' | 'usersAndGuests' | 'owner';

export interface Endpoint {
  method: string;
  /** The route as registered, to check that the table covers the router. */
  route: string;
  level: Level;
  path(t: Target): string;
  init?(t: Target): Init;
  /** What the owner or admin sends to show the endpoint works for them, when it differs from `init`. */
  okInit?(t: Target): Init;
  okStatus?: number;
  /** The 404 id a signed-in non-owner gets, the same as for an unknown id. */
  notFound?: string;
  /** The spec accepts the chunk-upload key (for PUT /transfer: to set complete only). */
  chunkKey?: boolean;
  /** Needs a caller with an e-mail address. */
  mailsCaller?: boolean;
}

const json = (j: unknown) => () => ({ json: j });
const chunk = () => ({
  body: patternBytes('attack', FILE_SIZE),
  headers: { 'content-type': 'application/octet-stream' },
});
const newTransfer = (t: Target) => ({
  json: {
    files: [{ name: 'x.txt', size: 1 }],
    recipients: ['x@example.org'],
    from: `${t.user}@example.org`,
    expires: inAWeek(),
    subject: 's',
  },
});

export const ENDPOINTS: Endpoint[] = [
  { method: 'GET', route: '/config', level: 'admin', path: () => '/config' },
  {
    method: 'PUT',
    route: '/config',
    level: 'admin',
    path: () => '/config',
    init: json({ default_transfer_days_valid: 9 }),
  },
  { method: 'GET', route: '/user/:id', level: 'admin', path: (t) => `/user/${t.user}`, notFound: 'user_not_found' },
  { method: 'GET', route: '/transfer/@all', level: 'admin', path: () => '/transfer/@all' },
  { method: 'GET', route: '/guest/@all', level: 'admin', path: () => '/guest/@all' },
  { method: 'GET', route: '/user/@all', level: 'admin', path: () => '/user/@all' },
  { method: 'GET', route: '/storage', level: 'admin', path: () => '/storage' },
  { method: 'GET', route: '/usage', level: 'admin', path: () => '/usage' },
  { method: 'GET', route: '/usage/counts', level: 'admin', path: () => '/usage/counts' },
  {
    method: 'POST',
    route: '/user',
    level: 'admin',
    path: () => '/user',
    okStatus: 201,
    init: (t) => ({ json: { id: `new-user-${t.transfer}`, email: 'new-user@example.org' } }),
  },
  {
    method: 'PUT',
    route: '/user/:id/admin',
    level: 'admin',
    path: (t) => `/user/${t.user}/admin`,
    init: json({ admin: true }),
  },
  {
    method: 'PUT',
    route: '/user/:id/quota',
    level: 'admin',
    path: (t) => `/user/${t.user}/quota`,
    init: json({ quota: 12345 }),
  },
  // Only a local account's addresses may be changed; this world's users come from a header SP, which owns
  // them: past the access check, the answer is 403 rest_access_forbidden (test/http/user-email.test.ts: 200).
  {
    method: 'PUT',
    route: '/user/:id/email',
    level: 'admin',
    path: (t) => `/user/${t.user}/email`,
    init: json({ email: 'changed@example.org' }),
    okStatus: 403,
  },
  // Under the header service provider alice has no local account: an admin gets past the access check to the
  // service's answer (test/http/admin-users.test.ts removes and resets real local accounts).
  { method: 'DELETE', route: '/user/:id', level: 'admin', path: (t) => `/user/${t.user}`, okStatus: 404 },
  {
    method: 'POST',
    route: '/user/:id/password',
    level: 'admin',
    path: (t) => `/user/${t.user}/password`,
    init: json({}),
    okStatus: 404,
  },

  { method: 'GET', route: '/user', level: 'users', path: () => '/user' },
  { method: 'GET', route: '/user/@me', level: 'users', path: () => '/user/@me' },
  { method: 'PUT', route: '/user', level: 'users', path: () => '/user', init: json({ lang: 'fr' }) },
  { method: 'PUT', route: '/user/@me', level: 'users', path: () => '/user/@me', init: json({ lang: 'de' }) },
  {
    method: 'GET',
    route: '/user/@me/frequent_recipients',
    level: 'users',
    path: () => '/user/@me/frequent_recipients',
  },
  { method: 'GET', route: '/user/@me/quota', level: 'users', path: () => '/user/@me/quota' },
  {
    method: 'PUT',
    route: '/user/@me/email',
    level: 'users',
    path: () => '/user/@me/email',
    init: json({ email: 'me@example.org' }),
    okStatus: 403,
  },
  // Only a local account signed in with its session changes its password (test/http/admin-users.test.ts):
  // under the header service provider the owner is refused too.
  {
    method: 'PUT',
    route: '/user/@me/password',
    level: 'users',
    path: () => '/user/@me/password',
    okStatus: 403,
    init: json({ current_password: 'x', password: 'long enough' }),
  },
  {
    method: 'GET',
    route: '/user/@me/filesender-python-client-configuration-file',
    level: 'users',
    path: () => '/user/@me/filesender-python-client-configuration-file',
  },
  { method: 'GET', route: '/guest', level: 'users', path: () => '/guest' },
  { method: 'GET', route: '/guest/@me', level: 'users', path: () => '/guest/@me' },
  {
    method: 'POST',
    route: '/guest',
    level: 'users',
    path: () => '/guest',
    okStatus: 201,
    init: (t) => ({ json: { recipient: 'new-guest@example.org', from: `${t.user}@example.org`, options: [] } }),
  },
  { method: 'GET', route: '/transfer', level: 'usersAndGuests', path: () => '/transfer' },
  { method: 'GET', route: '/transfer/@me', level: 'usersAndGuests', path: () => '/transfer/@me' },
  {
    method: 'POST',
    route: '/transfer',
    level: 'usersAndGuests',
    path: () => '/transfer',
    init: newTransfer,
    okStatus: 201,
  },

  {
    method: 'PUT',
    route: '/user/:id',
    level: 'owner',
    path: (t) => `/user/${t.user}`,
    init: json({ lang: 'nl' }),
    notFound: 'user_not_found',
  },
  {
    method: 'GET',
    route: '/user/:id/frequent_recipients',
    level: 'owner',
    path: (t) => `/user/${t.user}/frequent_recipients`,
    notFound: 'user_not_found',
  },

  ...(['', '/options', '/auditlog', '/auditlog/mail'] as const).map(
    (sub): Endpoint => ({
      method: 'GET',
      route: `/transfer/:id${sub}`,
      level: 'owner',
      path: (t) => `/transfer/${t.transfer}${sub}`,
      notFound: 'transfer_not_found',
      // The log is mailed to the caller: an application acting as itself has no address (400 bad_email).
      mailsCaller: sub === '/auditlog/mail',
    }),
  ),
  {
    method: 'POST',
    route: '/transfer/:id/recipient',
    level: 'owner',
    path: (t) => `/transfer/${t.transfer}/recipient`,
    okStatus: 201,
    init: json({ recipient: 'added@example.org' }),
    notFound: 'transfer_not_found',
  },
  // {complete: true} is what a chunk key may do here; closing is what the owner shows works.
  {
    method: 'PUT',
    route: '/transfer/:id',
    level: 'owner',
    path: (t) => `/transfer/${t.transfer}`,
    init: json({ complete: true }),
    okInit: json({ closed: true }),
    notFound: 'transfer_not_found',
    chunkKey: true,
  },
  {
    method: 'DELETE',
    route: '/transfer/:id',
    level: 'owner',
    path: (t) => `/transfer/${t.transfer}`,
    notFound: 'transfer_not_found',
    chunkKey: true,
  },

  { method: 'GET', route: '/file/:id', level: 'owner', path: (t) => `/file/${t.file}`, notFound: 'file_not_found' },
  {
    method: 'PUT',
    route: '/file/:id/chunk/:offset',
    level: 'owner',
    path: (t) => `/file/${t.emptyFile}/chunk/0`,
    init: chunk,
    notFound: 'file_not_found',
    chunkKey: true,
  },
  {
    method: 'PUT',
    route: '/file/:id',
    level: 'owner',
    path: (t) => `/file/${t.file}`,
    init: json({ complete: true }),
    notFound: 'file_not_found',
    chunkKey: true,
  },
  { method: 'DELETE', route: '/file/:id', level: 'owner', path: (t) => `/file/${t.file}`, notFound: 'file_not_found' },
  {
    method: 'POST',
    route: '/file/:id/whole',
    level: 'owner',
    path: (t) => `/file/${t.emptyFile}/whole`,
    okStatus: 201,
    init: () => multipart(patternBytes('attack', FILE_SIZE)),
    notFound: 'file_not_found',
    chunkKey: true,
  },

  {
    method: 'GET',
    route: '/recipient/:id',
    level: 'owner',
    path: (t) => `/recipient/${t.recipient}`,
    notFound: 'recipient_not_found',
  },
  {
    method: 'PUT',
    route: '/recipient/:id',
    level: 'owner',
    path: (t) => `/recipient/${t.recipient}`,
    init: json({ remind: true }),
    okInit: json({}),
    notFound: 'recipient_not_found',
  },
  {
    method: 'DELETE',
    route: '/recipient/:id',
    level: 'owner',
    path: (t) => `/recipient/${t.recipient}`,
    notFound: 'recipient_not_found',
  },

  { method: 'GET', route: '/guest/:id', level: 'owner', path: (t) => `/guest/${t.guest}`, notFound: 'guest_not_found' },
  {
    method: 'PUT',
    route: '/guest/:id',
    level: 'owner',
    path: (t) => `/guest/${t.guest}`,
    init: json({ remind: true }),
    notFound: 'guest_not_found',
  },
  {
    method: 'DELETE',
    route: '/guest/:id',
    level: 'owner',
    path: (t) => `/guest/${t.guest}`,
    notFound: 'guest_not_found',
  },
];

/** Routes every principal may call (their credential, if any, is a token in the URL); not part of the matrix. */
export const PUBLIC_ROUTES = [
  'GET /info',
  'GET /lang',
  'GET /echo',
  'POST /echo',
  'PUT /echo',
  'GET /echo/*rest',
  'POST /echo/*rest',
  'PUT /echo/*rest',
  'GET /legacyuploadprogress/:key',
  'GET /download',
  'GET /download.php',
  'GET /transfer/fileids',
  'GET /transfer/fileidsextended',
  'GET /filesender-config.js.php',
  'GET /download/files',
  'POST /download/unlock',
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  // Signing in and out: the login page, password forms, a redirect sign-in's start and callback, a logout the
  // identity provider starts, its metadata, and the session's own logout (test/http/auth-*.test.ts).
  'GET /login',
  'POST /login',
  'POST /login/:provider',
  'GET /login/:provider',
  'GET /login/:provider/callback',
  'POST /login/:provider/callback',
  'GET /login/:provider/logout',
  'POST /login/:provider/logout',
  'GET /login/:provider/metadata',
  'POST /logout',
  'GET /logout',
];

/** An id nobody holds, for each kind of resource. */
export const UNKNOWN: Target = {
  user: 'nobody-such',
  transfer: 987654321,
  file: 987654321,
  emptyFile: 987654321,
  recipient: 987654321,
  guest: 987654321,
  key: 'f'.repeat(32),
};

export type Expected = readonly [status: number, message: string] | 'own';

/** What `who` must get from an endpoint of `e`'s level that targets alice's resources. */
export function expected(e: Endpoint, who: Who): Expected {
  if (who === 'expiredGuest') return [410, 'guest_expired'];
  if (who === 'ownChunkKey' && e.chunkKey) return 'own';
  if (who === 'anonymous' || who === 'recipientToken' || who === 'foreignChunkKey' || who === 'ownChunkKey')
    return [401, 'rest_authentication_required'];
  switch (e.level) {
    case 'admin':
      return [403, 'rest_admin_required'];
    case 'owner':
      return [404, e.notFound!];
    case 'users':
      return who === 'otherUser' ? 'own' : [403, 'rest_access_forbidden'];
    case 'usersAndGuests':
      return who === 'remoteApp' ? [403, 'rest_access_forbidden'] : 'own';
  }
}

/** Who may call `e` on alice's resources and must succeed. */
export function allowed(e: Endpoint): Who[] {
  if (e.level === 'admin') return ['admin', 'adminApp'];
  if (e.level === 'owner') return e.mailsCaller ? ['owner', 'admin'] : ['owner', 'admin', 'adminApp'];
  return ['owner'];
}
