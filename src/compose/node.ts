import os from 'node:os';
import type { Logger } from '../log';

let appsInProcess = 0;

/** This node among those sharing the database: its name, and its log lines about background work. */
export interface NodeIdentity {
  /** `<host>:<pid>` (a second app in one process, as in the tests, adds `#2`). */
  name: string;
  /** What background work claims, finishes and takes over, with the node's name (docs/deploying.md, Logs). */
  note(msg: string): void;
}

export function thisNode(log: Logger): NodeIdentity {
  appsInProcess++;
  const name = `${os.hostname()}:${process.pid}${appsInProcess > 1 ? `#${appsInProcess}` : ''}`;
  return { name, note: (msg) => log.info(`node ${name}: ${msg}`) };
}
