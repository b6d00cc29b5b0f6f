/** A running node as the database knows it (docs/deploying.md, "Upgrading a cluster"). */
export interface NodeRecord {
  /** `<host>:<pid>`: what its log lines name it. */
  name: string;
  /** Its release (`ferry version`). */
  release: string;
  /** The highest feature level its release knows (src/domain/features.ts). */
  featureLevel: number;
  started: number;
  /** When it last said it runs (every few seconds). */
  seen: number;
}

/**
 * The nodes sharing one database, and the feature level they have all reached. Joining and raising the level are
 * each one transaction on the one `feature_level` row, so a node joining and a level rising are applied one after
 * the other: a node never joins under a level it does not know, and the level never rises past a node that joined.
 */
export interface NodeRegistry {
  /**
   * Records `node` as running, in one transaction with the check: when the level reached is higher than the
   * node's own, it is not recorded and the level reached is returned; null when it joined.
   */
  join(node: Omit<NodeRecord, 'seen'>, now: number): Promise<number | null>;
  /** The node still runs (its `seen` moves to `now`). */
  beat(name: string, now: number): Promise<void>;
  /** The node stopped (a clean stop; a killed node's row lapses instead). */
  leave(name: string): Promise<void>;
  /** The nodes seen since `since`. */
  running(since: number): Promise<NodeRecord[]>;
  /**
   * Raises the level reached to the lowest level of the nodes seen since `since`, never lowering it; returns the
   * level reached afterwards.
   */
  raiseLevel(since: number): Promise<number>;
  /** The highest level every running node has known (0 before any node of this mechanism ran). */
  levelReached(): Promise<number>;
}
