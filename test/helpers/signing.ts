import crypto from 'node:crypto';

/** Builds a signed URL the way a FileSender client does: sorted arguments, HMAC-SHA1 over method, URL and body. */
export function signedPath(opts: {
  method: string;
  host: string;
  path: string;
  args: Record<string, string | number>;
  secret: string;
  body?: Buffer | string;
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
