import type { Source } from './uploader';

/** A chosen file; `name` keeps the folder path when it came from a dropped or picked folder. */
export class PickedFile implements Source {
  constructor(
    readonly file: File,
    readonly name: string = file.webkitRelativePath || file.name,
  ) {}
  get size() {
    return this.file.size;
  }
  get lastModified() {
    return this.file.lastModified;
  }
  get type() {
    return this.file.type;
  }
  slice(start?: number, end?: number): Blob {
    return this.file.slice(start, end);
  }
}

/** Files of a drop: plain files, and every file inside dropped folders (walked recursively). */
export async function filesFromDrop(dt: DataTransfer): Promise<PickedFile[]> {
  const entries = Array.from(dt.items)
    .filter((i) => i.kind === 'file')
    .map((i) => i.webkitGetAsEntry?.() ?? null);
  if (entries.length === 0 || entries.some((e) => e === null))
    return Array.from(dt.files).map((f) => new PickedFile(f));
  const out: PickedFile[] = [];
  for (const e of entries as FileSystemEntry[]) await walk(e, out);
  return out;
}

async function walk(entry: FileSystemEntry, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push(new PickedFile(file, entry.fullPath.replace(/^\/+/, '')));
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries returns the folder in batches (100 at a time in Chromium) until an empty batch.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    for (const child of batch) await walk(child, out);
  }
}
