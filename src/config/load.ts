import fs from 'node:fs';
import path from 'node:path';
import type { Config, OptionName, SpLdap, SpOidc } from './defaults';
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
 * FERRY_S3_ACCESS_KEY_ID / FERRY_S3_SECRET_ACCESS_KEY, src/config/stores/s3.ts), so passwords need not sit in the file. They are validated with the file (a bad value
 * is reported under its key).
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
  if (auth && typeof auth === 'object' && auth.sp && typeof auth.sp === 'object') {
    const list = Array.isArray(auth.sp) ? auth.sp : [auth.sp];
    const withSecrets = list.map((e: unknown) => providerSecrets(e, env));
    out = { ...out, auth: { ...auth, sp: Array.isArray(auth.sp) ? withSecrets : withSecrets[0] } };
  }
  return out;
}

/**
 * An OIDC client secret or an LDAP service account's password from the environment, so it need not sit in the
 * file: FERRY_OIDC_<ID>_CLIENT_SECRET (the provider's id in capitals, "-" as "_") before FERRY_OIDC_CLIENT_SECRET,
 * and FERRY_LDAP_<ID>_BIND_PASSWORD before FERRY_LDAP_BIND_PASSWORD.
 */
function providerSecrets(entry: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof entry !== 'object' || entry === null) return entry;
  const e = entry as Record<string, unknown>;
  const id = (typeof e.id === 'string' ? e.id : String(e.type)).toUpperCase().replace(/-/g, '_');
  if (e.type === 'oidc') {
    const secret = env[`FERRY_OIDC_${id}_CLIENT_SECRET`] || env.FERRY_OIDC_CLIENT_SECRET;
    if (secret) return { ...e, client_secret: secret } satisfies Partial<Record<keyof SpOidc, unknown>>;
  }
  if (e.type === 'ldap') {
    const password = env[`FERRY_LDAP_${id}_BIND_PASSWORD`] || env.FERRY_LDAP_BIND_PASSWORD;
    if (password) return { ...e, bind_password: password } satisfies Partial<Record<keyof SpLdap, unknown>>;
  }
  return e;
}
