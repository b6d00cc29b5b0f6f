import os from 'node:os';
import { FEATURE_LEVEL, NodeFeatures } from '../domain/features';
import type { Clock, NodeRegistry } from '../domain/ports';
import type { Logger } from '../log';
import { VERSION } from '../version';

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

/**
 * This node's record among the running nodes (docs/deploying.md, "Upgrading a cluster"): `join` (serve only)
 * records it and says who runs beside it; `start` and `stop` keep the record fresh, only once joined.
 */
export function composeMembership(
  registry: NodeRegistry,
  clock: Clock,
  node: NodeIdentity,
  log: Logger,
  featureLevel = FEATURE_LEVEL,
) {
  const features = new NodeFeatures(registry, clock, { name: node.name, release: VERSION, featureLevel }, log);
  let joined = false;
  return {
    features,
    async join() {
      await features.join();
      joined = true;
      const others = (await features.running()).filter((n) => n.name !== node.name);
      const beside = others.length ? `, beside ${others.map((n) => `${n.name} (${n.release})`).join(', ')}` : '';
      node.note(
        `running ${VERSION} (feature level ${features.self.featureLevel}; level in force ${features.level()})${beside}`,
      );
    },
    start() {
      if (joined) features.start();
    },
    async stop() {
      if (joined) await features.stop();
    },
  };
}
