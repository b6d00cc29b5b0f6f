import fs from 'node:fs';
import path from 'node:path';
import { providersFromEnv } from '../auth/providers/auth-sp';
import type { Config, OptionName } from './defaults';
import { storeSchemaOf } from './stores';
import { ConfigError, validateConfig } from './validate';

export interface LoadedConfig {
  config: Config;
  /** The file the config came from, or null for the embedded defaults. */
  source: string | null;
  /** Whether the file sets base_url; when it does not, `serve` makes links follow the address it listens on. */
  baseUrlSet: boolean;
}

/**
 * Finds the config: an explicit path, else $FERRY_CONFIG, else ./ferry.json when present, else the defaults.
 * Relative paths inside the file (data_dir, mail.sink.dir) are taken relative to the working directory, as
 * an admin running `ferry serve` from the install directory expects.
 */
export function loadConfig(explicit?: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const file = explicit ?? env.FERRY_CONFIG ?? (fs.existsSync('ferry.json') ? 'ferry.json' : null);
  if (!file)
    return {
      config: validateConfig(
        withEnv({}, env),
        env.FERRY_DATABASE_URL ? 'defaults with FERRY_DATABASE_URL' : 'defaults',
      ),
      source: null,
      baseUrlSet: false,
    };
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
  const baseUrlSet = typeof raw === 'object' && raw !== null && (raw as Record<string, unknown>).base_url !== undefined;
  return { config: validateConfig(withEnv(raw, env), file), source: path.resolve(file), baseUrlSet };
}

/**
 * FERRY_DATABASE_URL overrides database_url, and a store kind's variables its block (the S3 store's credentials:
 * FERRY_S3_ACCESS_KEY_ID / FERRY_S3_SECRET_ACCESS_KEY, src/config/stores/s3.ts) and each identity provider kind's secrets
 * for its entries (src/auth/providers/auth-sp.ts), so passwords need not sit in the file. They are validated with
 * the file (a bad value is reported under its key).
 */
function withEnv(raw: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  // The file's options by name (still unchecked: validateConfig checks them with the environment's values).
  let out = raw as Partial<Record<OptionName, unknown>>;
  const url = env.FERRY_DATABASE_URL;
  if (url !== undefined && url !== '') out = { ...out, database_url: url };
  const storage = out.storage as Record<string, unknown> | undefined;
  const fromEnv = storage && typeof storage === 'object' ? storeSchemaOf(storage.type)?.fromEnv : undefined;
  if (storage && fromEnv) out = { ...out, storage: fromEnv(storage, env) };
  const auth = out.auth as Record<string, unknown> | undefined;
  if (auth && typeof auth === 'object' && auth.sp !== undefined)
    out = { ...out, auth: { ...auth, sp: providersFromEnv(auth.sp, env) } };
  return out;
}
