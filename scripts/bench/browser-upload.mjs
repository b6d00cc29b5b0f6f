// The upload page in Chromium beside a bare loop of the same REST calls, in the same run (issue: the page at the
// speed of the bare protocol). Each round uploads one file through ferry's real page (Send clicked → summary
// shown) and then the same file through a loop on the same logged-in page: POST /transfer, the chunk PUTs with
// `inflight` in flight (XMLHttpRequest, as the engine sends), PUT /file complete, PUT /transfer complete, no
// interface. Reported per side: MB/s, server CPU s/GiB, CPU s/GiB of each Chromium process (browser, renderer,
// GPU, network service, other utilities), and the page's long tasks (Long Tasks API) during the upload.
// Standalone: node scripts/bench/browser-upload.mjs [--quick] [--size-mib N] [--rounds N] [--chunk-mib N]
//   [--inflight N] [--fetch]  (--fetch adds a bare loop sending with fetch and a Blob body)
import fs from 'node:fs';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { MiB, cpuSeconds, makeFile, median, startFerry, tempDir } from './lib.mjs';

const GiB = 1024 * MiB;

/** Chromium's processes under `root` (itself included), each with its role and CPU seconds so far. */
export function chromiumProcesses(root) {
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.split(') ')[1].split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  const out = new Map();
  const walk = (pid) => {
    try {
      // Chromium's child processes rewrite their command line as one string (arguments split by spaces).
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const type = /--type=(\S+)/.exec(cmd)?.[1] ?? 'browser';
      const sub = /--utility-sub-type=(\S+)/.exec(cmd)?.[1] ?? '';
      const role =
        type === 'utility'
          ? /network/i.test(sub)
            ? 'network'
            : /storage/i.test(sub)
              ? 'storage'
              : 'utility'
          : type === 'gpu-process'
            ? 'gpu'
            : type === 'zygote'
              ? 'zygote'
              : type;
      out.set(pid, { role, cpu: cpuSeconds(pid) });
    } catch {
      return;
    }
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

/** CPU seconds per role used between two snapshots (processes that came and went count from 0). */
function cpuByRole(before, after) {
  const roles = {};
  for (const [pid, p] of after) {
    const used = p.cpu - (before.get(pid)?.cpu ?? 0);
    roles[p.role] = (roles[p.role] ?? 0) + used;
  }
  return roles;
}

/** Run in the page: records long tasks from the start of the page's life. */
function longTaskRecorder() {
  window.__longTasks = [];
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) window.__longTasks.push({ at: e.startTime, ms: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch {
    /* no Long Tasks API: reported as none */
  }
}

/**
 * Run in the page: clicks Send and resolves with the milliseconds until the summary is in the page, seen by a
 * MutationObserver (no polling, so the end is not seen late).
 */
function untilSummary() {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const seen = () => {
      if (!document.querySelector('#summary-title')) return;
      observer.disconnect();
      resolve(performance.now() - t0);
    };
    const observer = new MutationObserver(seen);
    observer.observe(document.body, { childList: true, subtree: true });
    document.querySelector('button.primary').click();
  });
}

/**
 * Run in the page: the bare loop over the file in #bench-file; resolves when the transfer is complete, with the
 * milliseconds it took.
 */
export async function bareLoop({ chunk, inflight, useFetch }) {
  const t0 = performance.now();
  const file = document.querySelector('#bench-file').files[0];
  const token = document.querySelector('meta[name="ferry-security-token"]')?.content;
  const h = token ? { 'X-Ferry-Security-Token': token } : {};
  const json = async (method, url, body) => {
    const r = await fetch(url, {
      method,
      headers: { ...h, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`${method} ${url}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  const t = await json('POST', '/transfer', {
    recipients: [],
    from: 'bench@example.org',
    expires: Math.floor(Date.now() / 1000) + 5 * 86400,
    options: ['get_a_link'],
    files: [{ name: file.name, size: file.size, mime_type: 'application/octet-stream', cid: 'f0' }],
  });
  const f = t.files[0];
  const put = (offset) => {
    const body = file.slice(offset, Math.min(file.size, offset + chunk));
    const url = `/file/${f.id}/chunk/${offset}?key=${f.uid}`;
    const headers = {
      ...h,
      'Content-Type': 'application/octet-stream',
      'X-Service-File-Size': String(file.size),
      'X-Service-Chunk-Offset': String(offset),
      'X-Service-Chunk-Size': String(body.size),
    };
    if (useFetch)
      return fetch(url, { method: 'PUT', headers, body }).then((r) => {
        if (!r.ok) throw new Error(`chunk ${offset}: ${r.status}`);
        return r.text();
      });
    return new Promise((resolve, reject) => {
      const x = new XMLHttpRequest();
      x.open('PUT', url);
      for (const [k, v] of Object.entries(headers)) x.setRequestHeader(k, v);
      x.upload.onprogress = () => undefined; // as the engine listens
      x.onload = () => (x.status === 200 ? resolve() : reject(new Error(`chunk ${offset}: ${x.status}`)));
      x.onerror = () => reject(new Error(`chunk ${offset}: no answer`));
      x.send(body);
    });
  };
  let next = 0;
  const lane = async () => {
    while (next < file.size) {
      const offset = next;
      next += chunk;
      await put(offset);
    }
  };
  await Promise.all(Array.from({ length: inflight }, lane));
  await json('PUT', `/file/${f.id}?key=${f.uid}`, { complete: true });
  await json('PUT', `/transfer/${t.id}?key=${f.uid}`, { complete: true });
  return performance.now() - t0;
}

/**
 * Rounds of (page, bare XHR loop[, bare fetch loop]), alternating. Returns one summary per side with the median
 * MB/s and CPU, and the per-round page/bare ratios.
 */
export async function browserUploadRounds({ dir, size, rounds, chunkMiB = 5, inflight = 4, withFetch = false }) {
  const { chromiumExecutable } = await tsImport('../../test/helpers/system/parts.ts', import.meta.url);
  const { chromium } = await import('playwright-core');
  const ferryDir = path.join(dir, `browser-ferry-${chunkMiB}`);
  fs.mkdirSync(ferryDir, { recursive: true });
  const ferry = await startFerry(ferryDir, { upload_chunk_size: chunkMiB * MiB });
  const file = path.join(dir, 'browser-upload.bin');
  if (!fs.existsSync(file) || fs.statSync(file).size !== size) makeFile(file, size);
  const exe = await chromiumExecutable();
  const browser = await chromium.launch({
    executablePath: exe,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  const context = await browser.newContext({
    extraHTTPHeaders: { 'X-Remote-User': 'bench', 'X-Remote-Email': 'bench@example.org' },
  });
  await context.addInitScript(longTaskRecorder);
  await context.addInitScript((n) => localStorage.setItem('ferry.upload.concurrency', String(n)), inflight);
  const page = await context.newPage();
  page.on('crash', () => console.error('browser-upload: the page crashed'));
  page.on('pageerror', (e) => console.error(`browser-upload: page error ${e.message}`));
  let closing = false;
  browser.on('disconnected', () => closing || console.error('browser-upload: Chromium went away'));
  // Chromium's first process is a child of this one (playwright starts it), beside ferry.
  const root = fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .find((pid) => {
      try {
        const ppid = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
        // The Debian launcher script execs the real binary: its name, not the script's, is in the command line.
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
        return ppid === process.pid && /chrom/i.test(path.basename(cmd));
      } catch {
        return false;
      }
    });
  if (!root) throw new Error(`no ${exe} process under this one`);
  const sides = { page: [], xhr: [], ...(withFetch ? { fetch: [] } : {}) };
  /** Measures one upload: wall, server CPU, Chromium CPU by role, long tasks in its span. */
  const measured = async (fn) => {
    await page.waitForTimeout(300);
    const cpu0 = cpuSeconds(ferry.proc.pid);
    const p0 = chromiumProcesses(root);
    const lt0 = await page.evaluate(() => performance.now());
    // Timed in the page (fn resolves with the milliseconds): timed here, each side's end came with a DevTools
    // round trip, and Playwright's waiting for the summary polls, at 0.5-1 s intervals after the first
    // second, which made the page's side up to a second longer than the upload was.
    const wall = (await fn()) / 1000;
    const roles = cpuByRole(p0, chromiumProcesses(root));
    const tasks = await page.evaluate((from) => window.__longTasks.filter((t) => t.at >= from).map((t) => t.ms), lt0);
    return {
      mbps: size / MiB / wall,
      serverPerGiB: (cpuSeconds(ferry.proc.pid) - cpu0) / (size / GiB),
      browserPerGiB: Object.values(roles).reduce((a, b) => a + b, 0) / (size / GiB),
      rolesPerGiB: Object.fromEntries(Object.entries(roles).map(([k, v]) => [k, v / (size / GiB)])),
      longTasks: tasks.length,
      longestMs: tasks.length ? Math.max(...tasks) : 0,
    };
  };
  try {
    const pageSide = async () => {
      await page.goto(`${ferry.url}/`);
      await page.locator('#upload-title').waitFor();
      await page.setInputFiles('#pick-files', [file]);
      await page.click('label:has-text("Get a link")');
      return measured(async () => {
        let timer;
        const timeout = new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error('timed out')),
            Number(process.env.BENCH_PAGE_TIMEOUT_MS ?? 600_000),
          );
        });
        try {
          return await Promise.race([page.evaluate(untilSummary), timeout]);
        } catch (e) {
          const status = await page
            .locator('main')
            .first()
            .innerText()
            .catch(() => '?');
          throw new Error(`the page did not finish: ${status}`, { cause: e });
        } finally {
          clearTimeout(timer);
        }
      });
    };
    const bareSide = async (side) => {
      await page.goto(`${ferry.url}/`);
      await page.locator('#upload-title').waitFor();
      await page.evaluate(() => {
        const i = document.createElement('input');
        i.type = 'file';
        i.id = 'bench-file';
        i.hidden = true;
        document.body.append(i);
      });
      await page.setInputFiles('#bench-file', [file]);
      return measured(() => page.evaluate(bareLoop, { chunk: chunkMiB * MiB, inflight, useFetch: side === 'fetch' }));
    };
    // Each round runs its sides in the reverse order of the round before, so that no side always runs first
    // (right after the other's upload, whose pages the kernel is still writing back).
    for (let r = 0; r < rounds; r++) {
      const order = Object.keys(sides);
      if (r % 2 === 1) order.reverse();
      for (const side of order) sides[side].push(side === 'page' ? await pageSide() : await bareSide(side));
    }
  } finally {
    closing = true;
    await browser.close();
    await ferry.stop();
  }
  const summary = (xs) => ({
    mbps: median(xs.map((x) => x.mbps)),
    serverPerGiB: median(xs.map((x) => x.serverPerGiB)),
    browserPerGiB: median(xs.map((x) => x.browserPerGiB)),
    rolesPerGiB: Object.fromEntries(
      Object.keys(xs[0].rolesPerGiB).map((k) => [k, median(xs.map((x) => x.rolesPerGiB[k] ?? 0))]),
    ),
    longTasks: Math.max(...xs.map((x) => x.longTasks)),
    longestMs: Math.max(...xs.map((x) => x.longestMs)),
    runs: xs,
  });
  const out = Object.fromEntries(Object.entries(sides).map(([k, xs]) => [k, summary(xs)]));
  out.ratios = sides.page.map((p, i) => p.mbps / sides.xhr[i].mbps);
  out.cpuRatios = sides.page.map((p, i) => p.browserPerGiB / sides.xhr[i].browserPerGiB);
  return out;
}

const roleText = (roles) =>
  Object.entries(roles)
    .filter(([, v]) => v >= 0.005)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(', ');

/** The rows for scripts/bench/run.mjs. */
export async function browserUploadRows({ quick, dir, row }) {
  const size = quick ? 64 * MiB : 1024 * MiB;
  const r = await browserUploadRounds({ dir, size, rounds: quick ? 1 : 9 });
  row(
    `the upload page in Chromium vs a bare XHR loop of the same REST calls, ${size / MiB} MiB, 4 in flight`,
    r.page,
    r.xhr,
    {
      browser: true,
      cpuRatios: r.cpuRatios,
      roles: `page: ${roleText(r.page.rolesPerGiB)}; bare: ${roleText(r.xhr.rolesPerGiB)}`,
    },
    // The rounds' ratios: the row's ratio is their median (it was passed where the table did not read it, so
    // the row showed no ratio and always failed).
    r.ratios,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, d) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : d;
  };
  const quick = process.argv.includes('--quick');
  const dir = tempDir();
  try {
    const r = await browserUploadRounds({
      dir,
      size: arg('--size-mib', quick ? 64 : 1024) * MiB,
      rounds: arg('--rounds', quick ? 1 : 9),
      chunkMiB: arg('--chunk-mib', 5),
      inflight: arg('--inflight', 4),
      withFetch: process.argv.includes('--fetch'),
    });
    for (const side of ['page', 'xhr', 'fetch']) {
      const s = r[side];
      if (!s) continue;
      console.log(
        `${side.padEnd(5)} ${s.mbps.toFixed(1)} MB/s (runs ${s.runs.map((x) => x.mbps.toFixed(0)).join(', ')}), server ${s.serverPerGiB.toFixed(2)} CPU-s/GiB, browser ${s.browserPerGiB.toFixed(2)} CPU-s/GiB (${roleText(s.rolesPerGiB)}), long tasks ${s.longTasks}, longest ${s.longestMs.toFixed(0)} ms`,
      );
    }
    console.log(
      `page/bare ${median(r.ratios).toFixed(2)} (runs ${r.ratios.map((x) => x.toFixed(2)).join(', ')}), browser CPU page/bare ${median(r.cpuRatios).toFixed(2)} (runs ${r.cpuRatios.map((x) => x.toFixed(2)).join(', ')})`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
