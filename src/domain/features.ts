import type { Clock, NodeRecord, NodeRegistry } from './ports';

/**
 * The feature level of this release. A feature whose absence on an older node would weaken access control (the
 * older node would serve what the newer one protects, or store a protection as nothing) is given the level of the
 * release that brings it, and stays off until every running node knows that level (docs/deploying.md,
 * "Upgrading a cluster"). Raise this number with such a feature, and name it in FEATURES.
 */
export const FEATURE_LEVEL = 1;

/** A feature that every running node must know before any node turns it on. */
export interface Feature {
  name: string;
  level: number;
}

/** The features of this release gated by the level (none yet beyond the level this mechanism itself came with). */
export const FEATURES: Record<string, Feature> = {};

/** A node is counted as running while it was seen this recently; a killed node's row lapses after this. */
export const NODE_LEASE_S = 30;
/** How often a node says it still runs, and reads the level again. */
export const NODE_BEAT_MS = 10_000;

/**
 * A node of an older release asked to run under a database that a newer one has moved on: a newer schema, or a
 * feature level it does not know. Not an internal error: the command line says it in one line and exits 1
 * (docs/deploying.md, "Upgrading a cluster").
 */
export class ReleaseTooOldError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReleaseTooOldError';
  }
}

export interface ThisNode {
  name: string;
  release: string;
  featureLevel: number;
}

/**
 * This node's place among the nodes sharing the database: it joins (refused when the level reached is beyond
 * its own), says every NODE_BEAT_MS that it still runs, and raises the level reached once every running node
 * knows it. `enabled(feature)` answers from the level read last, which only ever rises.
 */
export class NodeFeatures {
  private reached = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly registry: NodeRegistry,
    private readonly clock: Clock,
    readonly self: ThisNode,
    private readonly log: { info(msg: string): void; error(msg: string): void },
  ) {}

  /** The level every running node knows: features up to it are on. */
  level(): number {
    return this.reached;
  }

  enabled(feature: Feature): boolean {
    return feature.level <= this.reached;
  }

  /** Joins the cluster, or throws ReleaseTooOldError; then the level is read (and raised) once. */
  async join(): Promise<void> {
    const now = this.clock();
    const refused = await this.registry.join({ ...this.self, started: now }, now);
    if (refused !== null)
      throw new ReleaseTooOldError(
        `this ferry ${this.self.release} knows feature level ${this.self.featureLevel}, but every node of this database has run a release of level ${refused}: run that release or a later one here (docs/deploying.md, "Upgrading a cluster")`,
      );
    await this.refresh();
  }

  /** Says every NODE_BEAT_MS that this node runs, and reads the level again. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      void this.beat().catch((e: Error) => this.log.error(`node ${this.self.name}: ${e.message}`));
    }, NODE_BEAT_MS);
    this.timer.unref();
  }

  async beat(): Promise<void> {
    await this.registry.beat(this.self.name, this.clock());
    await this.refresh();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.registry.leave(this.self.name).catch(() => {});
  }

  /** The nodes counted as running now (the operator's view, and the tests'). */
  running(): Promise<NodeRecord[]> {
    return this.registry.running(this.clock() - NODE_LEASE_S);
  }

  private async refresh(): Promise<void> {
    const before = this.reached;
    this.reached = await this.registry.raiseLevel(this.clock() - NODE_LEASE_S);
    if (this.reached > before && before > 0)
      this.log.info(
        `node ${this.self.name}: every running node knows feature level ${this.reached}: its features are on`,
      );
  }
}
