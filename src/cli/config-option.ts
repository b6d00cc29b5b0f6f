import { loadConfig, LoadedConfig } from '../config/load';

/** Every subcommand's `-c, --config <file>`. */
export interface ConfigOpts {
  config?: string;
}

export function configFrom(opts: ConfigOpts): LoadedConfig {
  return loadConfig(opts.config);
}
