import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Folders made by tempDir in this process, removed when it exits. */
const made = new Set<string>();
let hooked = false;

/**
 * A new folder under the system's temporary folder, removed with everything in it when the test process exits:
 * servers' data directories, uploaded files, mail inboxes, browser profiles. Left behind, every run of the
 * suite kept some 2 GB of them, until a full disk failed unrelated work on the machine.
 */
export function tempDir(prefix = 'ferry-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', removeTempDirs);
  }
  return dir;
}

/** Removes every folder tempDir made so far (at exit; a folder a process still writes to is left as it is). */
export function removeTempDirs(): void {
  for (const dir of made) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // A child still writing into it (a browser closing): the temporary folder's own cleaning takes it later.
    }
    made.delete(dir);
  }
}
