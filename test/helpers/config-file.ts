import fs from 'node:fs';
import path from 'node:path';

/** Writes ferry.json in dir: port 0, data under dir (mail kept in its built-in inbox), no background purge. */
export function writeConfig(dir: string, config: Record<string, unknown> = {}): string {
  const file = path.join(dir, 'ferry.json');
  const base = { listen: { host: '127.0.0.1', port: 0 }, data_dir: path.join(dir, 'data'), purge_interval_s: 0 };
  fs.writeFileSync(file, JSON.stringify({ ...base, ...config }, null, 2));
  return file;
}
