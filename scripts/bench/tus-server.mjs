// Baseline: the tus reference server for Node (@tus/server + @tus/file-store), storing under the given dir.
import http from 'node:http';
import { Server } from '@tus/server';
import { FileStore } from '@tus/file-store';

const tus = new Server({ path: '/files', datastore: new FileStore({ directory: process.argv[2] }) });
const server = http.createServer((req, res) => tus.handle(req, res));
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
