// Shared pieces of the benchmarks: processes, measurements, HTTP clients. Loopback only; every loop bounded.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
// FERRY_BENCH_BINARY measures another build (e.g. one made on another Node) against the same baselines.
export const BINARY = process.env.FERRY_BENCH_BINARY
  ? path.resolve(process.env.FERRY_BENCH_BINARY)
  : path.join(ROOT, 'dist/ferry');
export const MiB = 1024 * 1024;
export const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export function tempDir(prefix = 'ferry-bench-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A file of pseudo-random bytes (AES-CTR keystream), written in 4 MiB blocks. */
export function makeFile(file, size) {
  const fd = fs.openSync(file, 'w');
  const cipher = crypto.createCipheriv('aes-128-ctr', Buffer.alloc(16, 3), Buffer.alloc(16));
  const block = Buffer.alloc(4 * MiB);
  for (let pos = 0; pos < size; pos += block.length) {
    const n = Math.min(block.length, size - pos);
    fs.writeSync(fd, cipher.update(block.subarray(0, n)), 0, n, pos);
  }
  fs.closeSync(fd);
}

/**
 * Starts a server process and waits (15 s at most) for its "listening on <url>" line. Only the last 64 KiB of
 * its output are kept (for error reports): the latency row makes ferry log ~4,000 lines a second, and keeping
 * and searching all of it cost this process half a core, on the two cores the server runs on.
 */
export function startProcess(cmd, args, opts = {}) {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  let out = '';
  const record = (d) => {
    out += d;
    if (out.length > 128 * 1024) out = out.slice(-64 * 1024);
  };
  proc.stdout.on('data', record);
  proc.stderr.on('data', record);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}`)), 15_000);
    const listening = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      proc.stdout.off('data', listening);
      resolve({ proc, url: m[1], output: () => out, stop: () => stopProcess(proc) });
    };
    proc.stdout.on('data', listening);
    proc.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
}

export function stopProcess(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    proc.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

/**
 * Starts dist/ferry with the header SP trusted from loopback, mail only logged, no background purge. `env`: added
 * to the process's environment.
 */
export async function startFerry(dir, extra = {}, env = {}) {
  const config = path.join(dir, 'ferry.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      listen: { host: '127.0.0.1', port: 0 },
      data_dir: path.join(dir, 'data'),
      mail: { transport: null },
      purge_interval_s: 0,
      max_transfer_size: 1024 ** 4,
      max_transfer_days_valid: 20,
      auth: {
        sp: {
          type: 'header',
          uid_header: 'X-Remote-User',
          email_header: 'X-Remote-Email',
          trusted_proxies: ['127.0.0.1'],
        },
      },
      ...extra,
    }),
  );
  const s = await startProcess(BINARY, ['serve', '-c', config], { cwd: dir, env: { ...process.env, ...env } });
  return { ...s, config };
}

export function ferryCli(args) {
  const r = spawnSync(BINARY, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ferry ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** CPU seconds used by a process so far (user + system). */
export function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The machine's CPU time so far and the part of it the hypervisor gave to other guests (steal), in ticks. */
export function machineTicks() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  return { total: f.reduce((a, b) => a + b, 0), steal: f[7] };
}

/** Resets the peak-RSS counter, so each row reports its own peak. */
export function resetPeak(pid) {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    /* not permitted: the peak then covers the process lifetime */
  }
}

/** The process's resident memory now (MiB). */
export function rssMiB(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

export function peakRssMiB(pid) {
  return Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

/**
 * Writes dirty pages back and, where allowed (root), empties the page cache: every upload row then starts from
 * the same state. Without it the kernel's cost of taking pages for new data swung the bare server's upload
 * from 230 to 440 MB/s between identical runs (this machine also pages out cold cache within seconds).
 * `keep`: [file, bytes] read back into the cache afterwards (the clients' source data: the budget's condition).
 */
export function freshPageCache(keep = []) {
  spawnSync('sync');
  try {
    fs.writeFileSync('/proc/sys/vm/drop_caches', '3');
  } catch {
    /* not root: dirty pages are written back at least */
  }
  const block = Buffer.allocUnsafe(4 * MiB);
  for (const [file, bytes] of keep) {
    const fd = fs.openSync(file, 'r');
    for (let pos = 0, n = 1; n > 0 && pos < bytes; pos += n) n = fs.readSync(fd, block, 0, block.length, pos);
    fs.closeSync(fd);
  }
}

/**
 * Runs fn while measuring the server process: wall seconds, CPU % and CPU seconds (all its threads, from
 * /proc/<pid>/stat: a figure that does not depend on the cores the client takes), peak RSS, and the share of the machine's
 * time stolen by the hypervisor meanwhile (on a shared VM it moves latency and speed from run to run).
 * `fresh`: start from an empty page cache but for the files in `fresh.keep` (uploads); otherwise only dirty
 * pages are written back first.
 */
export async function measure(pid, fn, { fresh = null } = {}) {
  // Dirty pages of the previous row (the baselines never flush theirs) would otherwise be written back by the
  // kernel during this one, on the same two cores.
  if (fresh) freshPageCache(fresh.keep);
  else spawnSync('sync');
  // While this process was blocked, the servers may have closed idle keep-alive sockets: let their close
  // events arrive before a request picks one of them (else: write EPIPE).
  await new Promise((r) => setTimeout(r, 300));
  resetPeak(pid);
  const cpu0 = cpuSeconds(pid);
  const m0 = machineTicks();
  const t0 = process.hrtime.bigint();
  const result = await fn();
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const m1 = machineTicks();
  const steal = ((m1.steal - m0.steal) / Math.max(1, m1.total - m0.total)) * 100;
  const cpuS = cpuSeconds(pid) - cpu0;
  return { wall, cpu: (cpuS / wall) * 100, cpuS, rss: peakRssMiB(pid), steal, result };
}

/**
 * One HTTP request with a Buffer body; resolves to {status, headers, body}. A request that fails on a kept-alive
 * socket the server closed at that moment (its keep-alive timeout) is sent once more on a new one, as Node's
 * documentation advises: the server never saw it, and the benchmark must not die of that race.
 */
export async function call(url, method, headers = {}, body = null) {
  try {
    return await callOnce(url, method, headers, body);
  } catch (e) {
    if (!e.reusedSocket || e.code !== 'ECONNRESET') throw e;
    return callOnce(url, method, headers, body);
  }
}

function callOnce(url, method, headers, body) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        headers: body ? { 'content-length': body.length, ...headers } : headers,
        agent,
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', (e) =>
      reject(
        Object.assign(new Error(`${method} ${u.host}${u.pathname}: ${e.message}`), {
          code: e.code,
          reusedSocket: req.reusedSocket,
        }),
      ),
    );
    req.end(body ?? undefined);
  });
}

/** Downloads a URL, counting bytes without keeping them. */
export function drain(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let n = 0;
        res.on('data', (c) => (n += c.length));
        res.on('end', () => resolve({ status: res.statusCode, bytes: n }));
      })
      .on('error', reject);
  });
}

/** Runs `count` jobs with `parallel` in flight. */
export async function pool(count, parallel, job) {
  let next = 0;
  const worker = async () => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
}

/**
 * A source file read in chunks into reused buffers, asynchronously: the client shares the machine with the
 * server it measures, and a fresh 5 MiB buffer per chunk, read with blocking calls, cost it a third of a core.
 */
export async function openSource(file, capacity) {
  const h = await fsp.open(file, 'r');
  const free = [];
  return {
    /** Calls fn with bytes [offset, offset + size) of the file; the buffer is reused once fn has resolved. */
    async use(offset, size, fn) {
      const buf = free.pop() ?? Buffer.allocUnsafeSlow(capacity);
      try {
        const body = buf.subarray(0, size);
        let done = 0;
        while (done < size) {
          const { bytesRead } = await h.read(body, done, size - done, offset + done);
          if (bytesRead === 0) throw new Error(`${file} is shorter than ${offset + size} bytes`);
          done += bytesRead;
        }
        return await fn(body);
      } finally {
        free.push(buf);
      }
    },
    close: () => h.close(),
  };
}

/** True when Debian's wrk is installed (the latency row's load generator). */
export function haveWrk() {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/**
 * GET requests over `connections` keep-alive connections for `seconds`, paths taken in turn, by wrk (one thread):
 * a client in C that costs the two shared cores a fraction of what node:http's client does (70–80% of a core at
 * 4,000 requests/s), so the latency is the server's, not the scheduler's. Latencies in milliseconds.
 */
// wrk counts an answer slower than its 2 s default as failed; on a loaded machine a slow answer is latency, and
// belongs in p99, so the timeout is 30 s (a wrong status still fails the row).
export async function wrkLatency(url, paths, headers, connections, seconds) {
  const dir = tempDir('ferry-wrk-');
  const script = path.join(dir, 'paths.lua');
  const lua = (v) => JSON.stringify(v); // a JSON string is a valid Lua string literal for these ASCII values
  fs.writeFileSync(
    script,
    `${Object.entries(headers)
      .map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`)
      .join('\n')}
local paths = { ${paths.map(lua).join(', ')} }
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("latency p50=%d p99=%d max=%d requests=%d failed=%d\\n", latency:percentile(50), latency:percentile(99),
    latency.max, summary.requests, e.connect + e.read + e.write + e.status + e.timeout))
end
`,
  );
  try {
    const out = await new Promise((resolve, reject) => {
      const p = spawn(
        'wrk',
        ['-t', '1', '-c', String(connections), '-d', `${seconds}s`, '--timeout', '30s', '-s', script, url],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let text = '';
      p.stdout.on('data', (d) => (text += d));
      p.stderr.on('data', (d) => (text += d));
      p.once('error', reject);
      p.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`))));
    });
    const m = /latency p50=(\d+) p99=(\d+) max=(\d+) requests=(\d+) failed=(\d+)/.exec(out);
    if (!m) throw new Error(`wrk printed no figures: ${out}`);
    const [p50, p99, max, requests, failed] = m.slice(1).map(Number);
    if (failed > 0 || requests === 0) throw new Error(`wrk: ${failed} of ${requests} requests failed`);
    return { p50: p50 / 1000, p99: p99 / 1000, max: max / 1000, requests };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The same figures as wrkLatency from node's own client (when wrk is not installed): `count` requests. */
export async function nodeLatency(url, paths, headers, connections, count) {
  const lat = [];
  await pool(count, connections, async (i) => {
    const t0 = process.hrtime.bigint();
    const r = await call(url + paths[i % paths.length], 'GET', headers);
    lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 200) throw new Error(`GET ${paths[i % paths.length]}: ${r.status}`);
  });
  lat.sort((a, b) => a - b);
  return {
    p50: lat[Math.floor(lat.length * 0.5)],
    p99: lat[Math.floor(lat.length * 0.99)],
    max: lat.at(-1),
    requests: count,
  };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
