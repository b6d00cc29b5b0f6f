import fs from 'node:fs';
import path from 'node:path';
import { Config } from './defaults';
import { ConfigError, validateConfig } from './validate';

export interface LoadedConfig {
  config: Config;
  /** The file the config came from, or null for the embedded defaults. */
  source: string | null;
}

/**
 * Finds the config: an explicit path, else $FERRY_CONFIG, else ./ferry.json when present, else the defaults.
 * Relative paths inside the file (data_dir, mail.sink.dir) are taken relative to the working directory, as
 * an admin running `ferry serve` from the install directory expects.
 */
export function loadConfig(explicit?: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const file = explicit ?? env.FERRY_CONFIG ?? (fs.existsSync('ferry.json') ? 'ferry.json' : null);
  if (!file) return { config: validateConfig({}, 'defaults'), source: null };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError([`cannot read the file: ${(e as NodeJS.ErrnoException).code ?? String(e)}`], file);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError([`not valid JSON: ${(e as Error).message}`], file);
  }
  return { config: validateConfig(raw, file), source: path.resolve(file) };
}

