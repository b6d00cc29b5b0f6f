import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import { seaAsset } from '../../util/sea';
import type { FerryState } from '../state';

/**
 * The browser's files (app.js, app.css, …) built by scripts/build-web.mjs. Inside the binary they are SEA
 * assets `web/<name>`; from source they are read from `.build/web-assets/` (or $FERRY_WEB_ASSETS). The
 * build writes `manifest.json` naming every file: one list for both places (Node 20's SEA could not list its
 * assets; Node 24's getAssetKeys could, but the folder read from source needs the list anyway).
 * Nothing is ever fetched from elsewhere (air-gapped installs).
 */
export interface WebAsset {
  name: string;
  body: Buffer;
  type: string;
  /** First 16 hex digits of the SHA-256 of the content: the ETag and the `?v=` cache buster. */
  hash: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export class AssetStore {
  private constructor(private readonly files: Map<string, WebAsset>) {}

  /** Reads every asset named in the manifest: from the binary when running as one, else from `dir`. */
  static load(dir = defaultAssetDir()): AssetStore {
    const read = (name: string): Buffer | null => {
      const fromSea = seaAsset(`web/${name}`);
      if (fromSea) return fromSea;
      try {
        return fs.readFileSync(path.join(dir, name));
      } catch {
        return null;
      }
    };
    const files = new Map<string, WebAsset>();
    const manifest = read('manifest.json');
    const names = manifest ? ((JSON.parse(manifest.toString('utf8')) as { files?: string[] }).files ?? []) : [];
    for (const name of names) {
      if (!NAME.test(name)) continue;
      const body = read(name);
      if (!body) continue;
      const hash = crypto.createHash('sha256').update(body).digest('hex').slice(0, 16);
      files.set(name, { name, body, type: TYPES[path.extname(name)] ?? 'application/octet-stream', hash });
    }
    return new AssetStore(files);
  }

  get(name: string): WebAsset | undefined {
    return this.files.get(name);
  }

  get size(): number {
    return this.files.size;
  }

  /** The URL a page links: content-hashed so the long cache never serves a stale file after an upgrade. */
  url(name: string, basePath = ''): string {
    const a = this.files.get(name);
    return `${basePath}/assets/${name}${a ? `?v=${a.hash}` : ''}`;
  }
}

export function defaultAssetDir(): string {
  if (process.env.FERRY_WEB_ASSETS) return process.env.FERRY_WEB_ASSETS;
  const fromSource = path.resolve(__dirname, '../../../.build/web-assets');
  return fs.existsSync(fromSource) ? fromSource : path.resolve(process.cwd(), '.build/web-assets');
}

let shared: AssetStore | null = null;

/** The process-wide store, read once on first use (assets never change while the process runs). */
export function webAssets(): AssetStore {
  shared ??= AssetStore.load();
  return shared;
}

/** GET/HEAD /assets/<name>: long-lived when the `v` matches the content, revalidated by ETag otherwise. */
export function assetRouter(store: () => AssetStore = webAssets): Router<FerryState> {
  const r = new Router<FerryState>();
  r.get('/assets/:name', (ctx) => {
    const asset = store().get(ctx.params.name);
    if (!asset) return; // falls through to the 404 error body
    const etag = `"${asset.hash}"`;
    ctx.set('ETag', etag);
    // A worker's script sets the worker's own CSP: the upload worker (web/upload/upload-worker.ts) sends the
    // chunks to this origin and nothing else. On a 304 too: the browser takes the revalidated answer's policy,
    // and without it the second upload's worker could reach nothing.
    if (ctx.params.name === 'upload-worker.js')
      ctx.set('Content-Security-Policy', "default-src 'none'; connect-src 'self'");
    ctx.set('Cache-Control', ctx.query.v === asset.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (ctx.get('If-None-Match') === etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = asset.type;
    ctx.body = asset.body;
  });
  // The download page's service worker (web/download-sw.ts) must be served from the folder it works for: its
  // scope is every URL below base_url. Revalidated on each load so a new version takes over at once.
  r.get('/download-sw.js', (ctx) => {
    const sw = store().get('download-sw.js');
    if (!sw) return;
    ctx.set('Cache-Control', 'no-cache');
    // A worker's script sets the worker's own CSP: it fetches the ciphertext from this origin and nothing else.
    ctx.set('Content-Security-Policy', "default-src 'none'; connect-src 'self'");
    ctx.set('ETag', `"${sw.hash}"`);
    ctx.type = sw.type;
    ctx.body = sw.body;
  });
  // Browsers ask for the icon at the root whatever the page says; it is revalidated daily (no content hash here).
  r.get('/favicon.ico', (ctx) => {
    const icon = store().get('favicon.ico');
    if (!icon) return;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.set('ETag', `"${icon.hash}"`);
    ctx.type = icon.type;
    ctx.body = icon.body;
  });
  return r;
}
