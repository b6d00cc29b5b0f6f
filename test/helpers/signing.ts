import crypto from 'node:crypto';

/** Builds a signed URL the way a FileSender client does: sorted arguments, HMAC-SHA1 over method, URL and body. */
export function signedPath(opts: {
  method: string;
  host: string;
  path: string;
  args: Record<string, string | number>;
  secret: string;
  body?: Buffer | string;
  /** Seconds since the epoch; now unless given (a test whose server runs on a moved clock passes its own). */
  at?: number;
}): string {
  const args = Object.entries(opts.args)
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  let toSign = Buffer.from(`${opts.method.toLowerCase()}&${opts.host}${opts.path}?${args.join('&')}`);
  if (opts.body?.length) toSign = Buffer.concat([toSign, Buffer.from('&'), Buffer.from(opts.body)]);
  const signature = crypto.createHmac('sha1', opts.secret).update(toSign).digest('hex');
  const query = Object.entries(opts.args).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return `${opts.path}?${[...query, `signature=${signature}`].join('&')}`;
}

export const nowS = () => Math.floor(Date.now() / 1000);

/**
 * A URL signed (now, unless `at` says when) by a remote application (`app`), acting as `user` when given, or by a remote user alone
 * (`user` without `app`), the way FileSender's remote clients sign.
 */
export function remoteSigned(o: {
  method?: string;
  host: string;
  path: string;
  app?: string;
  user?: string;
  secret: string;
  body?: Buffer | string;
  /** Seconds since the epoch; now unless given (a test whose server runs on a moved clock passes its own). */
  at?: number;
}): string {
  const args: Record<string, string | number> = {};
  if (o.app !== undefined) args.remote_application = o.app;
  if (o.user !== undefined) args.remote_user = o.user;
  args.timestamp = o.at ?? nowS();
  return signedPath({ method: o.method ?? 'GET', host: o.host, path: o.path, args, secret: o.secret, body: o.body });
}
