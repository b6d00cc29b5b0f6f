import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, BrowserContext, Page } from 'playwright-core';
import {
  startBinary,
  writeConfig,
  runFerry,
  serverHandle,
  spawnServer,
  BinaryServer,
  RunResult,
} from '../helpers/binary';
import { tempDir, freePort, HEADER_SP } from '../helpers/server';
import { chromiumExecutable } from '../helpers/system/parts';

/**
 * Browser tests: Chromium (Debian's, else the one @sparticuz/chromium carries: test/helpers/system/parts.ts) driven by playwright-core against the built binary (dist/ferry), with a
 * fresh profile folder per browser. FERRY_TEST_FROM_SOURCE=1 runs `src/main.ts serve` instead, for working
 * on the UI without rebuilding (assets from .build/web-assets: run scripts/build-web.mjs first).
 */
export const ARTIFACTS = path.resolve(__dirname, '../artifacts');
const ROOT = path.resolve(__dirname, '../..');

export const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--headless',
];

export async function startFerry(given: Record<string, unknown> = {}): Promise<BinaryServer> {
  // Links in mails and the API string are built from base_url, so it must name the real port.
  const port = await freePort();
  const config = { listen: { host: '127.0.0.1', port }, base_url: `http://127.0.0.1:${port}`, ...given };
  if (process.env.FERRY_TEST_FROM_SOURCE !== '1') return startBinary({ config });
  const dir = tempDir('ferry-browser-');
  const configFile = writeConfig(dir, config);
  const spawned = await spawnServer(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src/main.ts'), 'serve', '-c', configFile],
    { cwd: ROOT, env: { ...process.env, FERRY_WEB_ASSETS: path.join(ROOT, '.build/web-assets') } },
    {
      label: `ferry serve (source) in ${dir}`,
      logDebug: () => (given.log as { debug?: boolean })?.debug === true,
      timeoutMs: 30_000,
    },
  );
  return serverHandle(spawned, dir, configFile);
}

/**
 * A local account on `ferry`, added as an admin does (`ferry user add <user> --email <email> --password-stdin`);
 * throws with the command's error when it is refused.
 */
export function addLocalUser(ferry: BinaryServer, user: string, email: string, password: string): void {
  const add = ferryCli(
    ['user', 'add', user, '--email', email, '--password-stdin', '-c', ferry.configFile],
    `${password}\n`,
  );
  if (add.code !== 0) throw new Error(`ferry user add ${user}: exit ${add.code}: ${add.stderr}`);
}

/** Runs a ferry command (the binary, or the source with FERRY_TEST_FROM_SOURCE=1). */
export function ferryCli(args: string[], input?: string): RunResult {
  if (process.env.FERRY_TEST_FROM_SOURCE !== '1') return runFerry(args, { input });
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts'), ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  userDataDir: string;
  /** Console errors and uncaught page errors (CSP violations show here). */
  errors: string[];
  close(): Promise<void>;
}

/** A browser with its own profile folder; pass the same folder again to model a browser restart. */
export async function openBrowser(
  opts: { headers?: Record<string, string>; userDataDir?: string; width?: number; timezoneId?: string } = {},
): Promise<BrowserSession> {
  const userDataDir = opts.userDataDir ?? tempDir('ferry-chromium-');
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: await chromiumExecutable(),
    headless: true,
    args: LAUNCH_ARGS,
    extraHTTPHeaders: opts.headers,
    viewport: { width: opts.width ?? 1280, height: 900 },
    timezoneId: opts.timezoneId,
    acceptDownloads: true,
    timeout: 60_000,
  });
  context.setDefaultTimeout(30_000);
  const errors: string[] = [];
  const watch = (p: Page) => {
    p.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    p.on('pageerror', (e) => errors.push(e.message));
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page, userDataDir, errors, close: () => context.close() };
}

export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * The upload page of `baseUrl` with the form filled as a sender does: the files picked, the recipients typed
 * (Enter makes each a chip), the subject. Nothing is sent yet: the caller sets any other field and clicks.
 */
export async function fillUploadForm(
  page: Page,
  baseUrl: string,
  files: string[],
  recipients: string,
  subject: string,
): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.locator('#upload-title').waitFor();
  await page.setInputFiles('#pick-files', files);
  await page.fill('#upload-recipients', recipients);
  await page.keyboard.press('Enter');
  await page.fill('#upload-subject', subject);
}

/**
 * Chromium's own network emulation (the DevTools protocol) on the session's page: the answer sets the link, an
 * upload rate in bytes per second or 'offline', with `latencyMs` each way; downloads are not held.
 */
export async function emulatedLink(
  b: BrowserSession,
  latencyMs = 20,
): Promise<(upload: number | 'offline') => Promise<unknown>> {
  const cdp = await b.context.newCDPSession(b.page);
  await cdp.send('Network.enable');
  return (upload) =>
    cdp.send('Network.emulateNetworkConditions', {
      offline: upload === 'offline',
      latency: latencyMs,
      downloadThroughput: -1,
      uploadThroughput: upload === 'offline' ? 0 : upload,
    });
}

/** A file of pseudo-random bytes written in 1 MiB blocks (never held whole in memory), with its SHA-256. */
export function makeFile(dir: string, name: string, size: number): { path: string; size: number; sha256: string } {
  const file = path.join(dir, name);
  const fd = fs.openSync(file, 'w');
  const hash = crypto.createHash('sha256');
  for (let done = 0; done < size; ) {
    const block = crypto.randomBytes(Math.min(1 << 20, size - done));
    fs.writeSync(fd, block);
    hash.update(block);
    done += block.length;
  }
  fs.closeSync(fd);
  return { path: file, size, sha256: hash.digest('hex') };
}

export function sha256(buf: Buffer | string): string {
  return crypto
    .createHash('sha256')
    .update(typeof buf === 'string' ? fs.readFileSync(buf) : buf)
    .digest('hex');
}

/** Samples a progress bar's value until the upload summary shows (bounded); returns the values seen. */
export async function watchProgress(
  page: Page,
  timeoutMs = 240_000,
  onValue?: (v: number) => unknown,
): Promise<number[]> {
  const seen: number[] = [];
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await page.locator('#summary-title').count()) return seen;
    const v = await page
      .locator('#progress-total')
      .getAttribute('value', { timeout: 1000 })
      .catch(() => null);
    if (v !== null && Number(v) !== seen[seen.length - 1]) {
      seen.push(Number(v));
      await onValue?.(Number(v));
    }
    await page.waitForTimeout(100);
  }
  throw new Error(
    `upload did not finish within ${timeoutMs} ms (progress seen: ${seen.join(',')}; status: ${await page
      .locator('.status')
      .textContent()
      .catch(() => '?')})`,
  );
}

/** REST calls as a header-SP user, the way a trusted proxy would send them. */
export async function rest(
  url: string,
  method: string,
  p: string,
  user: string,
  json?: unknown,
): Promise<{ status: number; json: any; body: Buffer; headers: Headers }> {
  const res = await fetch(url + p, {
    method,
    headers: {
      'X-Remote-User': user,
      'X-Remote-Email': `${user}@example.org`,
      ...(json !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: json !== undefined ? JSON.stringify(json) : undefined,
    signal: AbortSignal.timeout(120_000),
  });
  const body = Buffer.from(await res.arrayBuffer());
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  return { status: res.status, json: parsed, body, headers: res.headers };
}

/** The header service provider of the HTTP tests: a page acts as any user, as behind a trusted reverse proxy. */
export const HEADER_SP_CONFIG = HEADER_SP;

export function asUserHeaders(id: string): Record<string, string> {
  return { 'X-Remote-User': id, 'X-Remote-Email': `${id}@example.org` };
}

/** The time left as the progress line shows it ("45 s", "3 min", "1 h 05 min"), in seconds. */
export function parseEta(text: string): number {
  let s = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)\s*(h|min|s)\b/g))
    s += Number(n) * { h: 3600, min: 60, s: 1 }[unit as 'h'];
  return s;
}
