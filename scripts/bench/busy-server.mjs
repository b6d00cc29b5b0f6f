// Baseline for the `GET /transfer/{id}` latency row: a bare node:http server that spends the same CPU per
// request as ferry did (a busy loop of `--cpu-us` microseconds on its one thread) and answers with a body of
// ferry's size. What its p99 is on this machine at that moment is the machine's share of the tail (other work
// on the two cores, steal); what ferry's p99 has beyond it is ferry's own (docs/performance.md,
// "The ZIP row's memory and the latency row's tail").
// node scripts/bench/busy-server.mjs --cpu-us N --body-bytes N   (prints "listening on <url>")
import http from 'node:http';

const arg = (name) => Number(process.argv[process.argv.indexOf(name) + 1]);
const cpuNs = BigInt(Math.round(arg('--cpu-us') * 1000));
const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(Math.max(0, arg('--body-bytes') - 10)) }));

const server = http.createServer((_req, res) => {
  const until = process.hrtime.bigint() + cpuNs;
  while (process.hrtime.bigint() < until);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
