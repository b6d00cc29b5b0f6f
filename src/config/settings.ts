import { Config, isRuntimeKey, type OptionName, type Overrides, RUNTIME_KEYS } from './defaults';
import { crossChecks, runtimeSchemas } from './validate';
import { Errors } from '../domain/errors';

/**
 * Where runtime overrides (PUT /config) are persisted; the database implements it: one JSON value per option, the
 * option's name as the key. A name this version does not take (another node's newer version may) is ignored
 * here and kept as it is.
 */
export interface OverrideStore {
  load(): Promise<Record<string, unknown>>;
  save(values: Record<string, unknown>): Promise<void>;
}

/**
 * The effective configuration: the file's values with the admin's runtime overrides on top. Passed to every
 * service that needs limits, so a change through PUT /config takes effect at once without a global. Other
 * nodes (and processes) sharing the database see a change when they next reload() (serve: every few seconds).
 */
export class Settings {
  private current: Config;
  /** The address `serve` listens on, when the config file sets no base_url (setBaseUrl). */
  private listenBase: string | null = null;
  /** Links name an address other machines cannot reach (listening on every address, no base_url set). */
  private listenBaseLocalOnly = false;
  /** An admin's public address (PUT /config base_url), which wins over the others. */
  private adminBase: string | null = null;

  constructor(
    private readonly base: Config,
    private readonly store?: OverrideStore,
  ) {
    this.current = this.compose({});
  }

  /** Reads the stored overrides again (at start-up, then periodically so another node's PUT /config applies here too). */
  async reload(): Promise<void> {
    const overrides = await this.stored();
    this.current = this.compose(overrides);
    this.adminBase = adminBaseOf(overrides);
  }

  /**
   * Links (download_url, mails, /info) name the address `serve` actually listens on when the config leaves
   * base_url out, so `--port 9090` or port 0 gives working links rather than the default localhost:8080.
   * `localOnly`: that address is this machine's own name for it (serve listens on every address), so mailed
   * links reach nobody else; the admins are told until a public address is set.
   */
  setBaseUrl(url: string, localOnly = false): void {
    this.listenBase = url.replace(/\/+$/, '');
    this.listenBaseLocalOnly = localOnly;
    this.current = { ...this.current, base_url: this.adminBase ?? this.listenBase };
  }

  /** The links name an address only this machine reaches, and no one has set the public address. */
  publicAddressMissing(): boolean {
    return this.listenBaseLocalOnly && this.adminBase === null;
  }

  get(): Config {
    return this.current;
  }

  /** The configuration as the file (and the environment) gave it, before any PUT /config: what a reset returns to. */
  fromFile(): Config {
    return this.base;
  }

  async overrides(): Promise<Overrides> {
    return this.stored();
  }

  /** The stored overrides of options PUT /config may change. */
  private async stored(): Promise<Overrides> {
    const rows = (await this.store?.load()) ?? {};
    return Object.fromEntries(Object.entries(rows).filter(([name]) => isRuntimeKey(name)));
  }

  /**
   * Validates and applies overrides (PUT /config's body: option names and JSON values); throws ServiceError naming
   * every offending key.
   */
  async update(values: Record<string, unknown>): Promise<Config> {
    const bad: string[] = [];
    const given: Overrides = {};
    for (const [key, value] of Object.entries(values)) {
      if (!isRuntimeKey(key)) {
        bad.push(key);
        continue;
      }
      if (!runtimeSchemas[key].safeParse(value).success) bad.push(key);
      given[key] = value;
    }
    if (bad.length) throw Errors.restBadParameter(...bad);
    const merged = { ...((await this.store?.load()) ?? {}), ...given };
    const next = this.compose(merged);
    const cross = crossChecks(next);
    // Each problem starts with its option's name (`problem()` in src/config/defaults.ts).
    if (cross.length) throw Errors.restBadParameter(...cross.map((c) => c.split(':')[0] as OptionName));
    await this.store?.save(merged);
    this.current = next;
    this.adminBase = adminBaseOf(merged);
    return next;
  }

  private compose(overrides: Overrides): Config {
    const next: Config = { ...this.base };
    for (const key of RUNTIME_KEYS) {
      // Checked when stored (update), so each value has its option's type.
      if (key !== 'base_url' && key in overrides) (next as Record<typeof key, unknown>)[key] = overrides[key];
    }
    // The public address: an admin's, else the listening address (no base_url in the file), else the file's.
    next.base_url = adminBaseOf(overrides) ?? this.listenBase ?? this.base.base_url;
    return next;
  }
}

function adminBaseOf(overrides: Overrides): string | null {
  return typeof overrides.base_url === 'string' ? overrides.base_url.replace(/\/+$/, '') : null;
}
