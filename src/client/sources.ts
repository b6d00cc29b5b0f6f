import fs from 'node:fs';
import path from 'node:path';
import { ClientError } from './errors';

/** A local file to send, and the name it gets in the Transfer. */
export interface SourceFile {
  /** Absolute path on this machine. */
  path: string;
  /** Name in the Transfer: the base name, or for a file inside a folder given on the command line, its path
   * relative to that folder's parent (`photos/2026/a.jpg`), always with '/'. */
  name: string;
  size: number;
  mtimeMs: number;
}

/**
 * The files named on the command line, folders walked (in name order, so two runs list them alike and a
 * rerun finds its resume record). Symbolic links to files are followed; links to folders are not (they can
 * loop), and are reported in `skipped`, as are sockets and devices.
 */
export function collectSources(args: string[], cwd = process.cwd()): { files: SourceFile[]; skipped: string[] } {
  const files: SourceFile[] = [];
  const skipped: string[] = [];
  for (const arg of args) {
    const abs = path.resolve(cwd, arg);
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new ClientError(code === 'ENOENT' ? `no such file or folder: ${arg}` : `cannot read ${arg}: ${code}`);
    }
    if (st.isFile()) files.push({ path: abs, name: path.basename(abs), size: st.size, mtimeMs: st.mtimeMs });
    else if (st.isDirectory()) walk(abs, path.basename(abs), files, skipped);
    else throw new ClientError(`not a file or folder: ${arg}`);
  }
  const byName = new Map<string, string>();
  for (const f of files) {
    const earlier = byName.get(f.name);
    if (earlier !== undefined)
      throw new ClientError(`two files would have the same name ${JSON.stringify(f.name)}: ${earlier} and ${f.path}`);
    byName.set(f.name, f.path);
  }
  return { files, skipped };
}

function walk(dir: string, prefix: string, files: SourceFile[], skipped: string[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    throw new ClientError(`cannot read the folder ${dir}: ${(e as NodeJS.ErrnoException).code}`);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const abs = path.join(dir, e.name);
    const name = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) {
      walk(abs, name, files, skipped);
      continue;
    }
    let st: fs.Stats;
    try {
      st = e.isSymbolicLink() ? fs.statSync(abs) : fs.lstatSync(abs);
    } catch {
      skipped.push(`${abs} (a broken link)`);
      continue;
    }
    if (st.isFile()) files.push({ path: abs, name, size: st.size, mtimeMs: st.mtimeMs });
    else skipped.push(`${abs} (${st.isDirectory() ? 'a link to a folder' : 'not a regular file'})`);
  }
}

/** A MIME type from the name, for the few kinds a recipient's browser shows rather than saves. */
export function mimeTypeOf(name: string): string {
  const ext = path.extname(name).toLowerCase().slice(1);
  return MIME[ext] ?? 'application/octet-stream';
}

const MIME: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  mp3: 'audio/mpeg',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  json: 'application/json',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
};
