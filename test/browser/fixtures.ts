import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import * as assert from 'uvu/assert';
import { freePort } from '../helpers/server';
import type { Page } from 'playwright-core';
import { rest, type BrowserSession } from './harness';

/** A complete Transfer made through the REST API (header SP), as any client would; returns the Transfer. */
export async function sendViaRest(
  url: string,
  user: string,
  subject: string,
  files: Record<string, string>,
  recipients: string[],
  options: string[] = [],
) {
  const created = await rest(url, 'POST', '/transfer', user, {
    from: `${user}@example.org`,
    recipients,
    subject,
    options,
    expires: Math.floor(Date.now() / 1000) + 5 * 86400,
    files: Object.entries(files).map(([name, content]) => ({ name, size: Buffer.byteLength(content) })),
  });
  assert.is(created.status, 201, `POST /transfer: ${JSON.stringify(created.json)}`);
  for (const f of created.json.files) {
    const body = files[f.name];
    const res = await fetch(`${url}/file/${f.id}/chunk/0?key=${f.uid}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream' },
      body,
    });
    assert.is(res.status, 200, `chunk of ${f.name}`);
    assert.is((await rest(url, 'PUT', `/file/${f.id}?key=${f.uid}`, user, { complete: true })).status, 200);
  }
  const done = await rest(url, 'PUT', `/transfer/${created.json.id}`, user, { complete: true });
  assert.is(done.status, 200);
  return done.json;
}

/** Mail kept by the built-in sink, in a folder of its own: the config part and a reader of what arrived. */
export async function mailSink(dir: string): Promise<{
  config: { transport: null; sink: { host: string; port: number; dir: string } };
  mails(): Promise<{ to: string; subject: string; text: string }[]>;
}> {
  const sinkDir = path.join(dir, 'mail-sink');
  return {
    config: { transport: null, sink: { host: '127.0.0.1', port: await freePort(), dir: sinkDir } },
    async mails() {
      if (!fs.existsSync(sinkDir)) return [];
      const files = fs.readdirSync(sinkDir).filter((f) => f.endsWith('.eml'));
      return Promise.all(
        files.map(async (f) => {
          const m = await simpleParser(fs.readFileSync(path.join(sinkDir, f)));
          const to = [m.to ?? []]
            .flat()
            .flatMap((a) => a.value.map((v) => v.address ?? ''))
            .join(',');
          return { to, subject: m.subject ?? '', text: `${m.text ?? ''}\n${typeof m.html === 'string' ? m.html : ''}` };
        }),
      );
    },
  };
}

/** SHA-256 of a file in the page's private file system, read back in 8 MiB slices. */
export async function savedSha256(b: BrowserSession, name: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  const size = await b.page.evaluate(
    async (n) => (await (await (await navigator.storage.getDirectory()).getFileHandle(n)).getFile()).size,
    name,
  );
  for (let at = 0; at < size; at += 8 << 20) {
    const part = await b.page.evaluate(
      async ([n, from]) => {
        const file = await (await (await navigator.storage.getDirectory()).getFileHandle(n as string)).getFile();
        const bytes = new Uint8Array(await file.slice(from as number, (from as number) + (8 << 20)).arrayBuffer());
        let s = '';
        for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return btoa(s);
      },
      [name, at] as const,
    );
    hash.update(Buffer.from(part, 'base64'));
  }
  return hash.digest('hex');
}

/** axe-core, injected into pages by axe() (the browser tests' accessibility check). */
const AXE = fs.readFileSync(path.resolve(__dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8');

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** Runs axe in the page (evaluated through the DevTools protocol, so the page's CSP does not apply). */
export async function axe(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const w = window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: any[] }> } };
    const r = await w.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')),
    }));
  });
}
