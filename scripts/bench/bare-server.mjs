// Baseline: a bare node:http server, no framework. PUT /file/<id>/chunk/<offset> writes the body at its offset
// into a file opened once (positional writes); GET /file/<id> streams a file with 1 MiB reads;
// GET /concat?ids=a,b streams several files one after the other; DELETE /file/<id> removes one.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const dir = process.argv[2];
const fds = new Map();
const fdOf = (id) => {
  if (!fds.has(id)) fds.set(id, fs.openSync(path.join(dir, id), fs.existsSync(path.join(dir, id)) ? 'r+' : 'w+'));
  return fds.get(id);
};

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  const put = /^\/file\/(\w+)\/chunk\/(\d+)$/.exec(url.pathname);
  if (req.method === 'PUT' && put) {
    const fd = fdOf(put[1]);
    let pos = Number(put[2]);
    for await (const chunk of req) {
      await new Promise((resolve, reject) => fs.write(fd, chunk, 0, chunk.length, pos, (e) => (e ? reject(e) : resolve())));
      pos += chunk.length;
    }
    res.end('{}');
    return;
  }
  const get = /^\/file\/(\w+)$/.exec(url.pathname);
  if (req.method === 'DELETE' && get) {
    if (fds.has(get[1])) fs.closeSync(fds.get(get[1]));
    fds.delete(get[1]);
    fs.rmSync(path.join(dir, get[1]), { force: true });
    res.end('{}');
    return;
  }
  if (req.method === 'GET' && get) {
    const file = path.join(dir, get[1]);
    res.writeHead(200, { 'content-length': fs.statSync(file).size });
    fs.createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(res);
    return;
  }
  if (req.method === 'GET' && url.pathname === '/concat') {
    const files = url.searchParams.get('ids').split(',').map((id) => path.join(dir, id));
    res.writeHead(200, { 'content-length': files.reduce((n, f) => n + fs.statSync(f).size, 0) });
    for (const f of files) {
      for await (const c of fs.createReadStream(f, { highWaterMark: 1024 * 1024 })) if (!res.write(c)) await new Promise((r) => res.once('drain', r));
    }
    res.end();
    return;
  }
  res.statusCode = 404;
  res.end();
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
