/** Where a command writes; tests pass buffers, main passes the process streams. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Reads all of standard input (for --password-stdin). */
  readStdin(): Promise<string>;
  /** Standard error when it is a terminal (the client's progress bar); absent or null otherwise. */
  tty?: { write(text: string): void; columns: number } | null;
}

export const processIO: CliIO = {
  out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
  err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  tty: process.stderr.isTTY
    ? {
        write: (t: string) => process.stderr.write(t),
        get columns() {
          return process.stderr.columns || 80;
        },
      }
    : null,
};

/** A usage or input error: exit code 1 with a one-line message (docs/architecture.md, Command line). */
export class UsageError extends Error {}

/** A check that ran and found problems (`ferry verify`): exit code 1, the report already printed, one line on stderr. */
export class CheckFailed extends Error {}
