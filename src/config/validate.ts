import path from 'node:path';
import {
  ANTIVIRUS_DEFAULTS,
  Config,
  defaultConfig,
  MailSinkConfig,
  type OptionName,
  problem,
  type RuntimeKey,
  UNDISCLOSABLE,
} from './defaults';
import { arrayOf, bool, type Check, int, ipOrCidr, nullable, object, oneOf, smtpUrl, str } from './checks';
import { providerCrossChecks, spCheck } from '../auth/providers/auth-sp';
import { providerConfigs } from '../auth/providers/registry';
import { storeSchemaOf, storeTypes } from './stores';

// Validates a parsed config object against the schema of docs/architecture.md, Configuration and merges it over
// the defaults. Every problem is collected (with the key's path) so an admin fixes the file in one go.

const LANG = /^[a-z]{2}(-[A-Za-z]{2})?$/;
export const DISCLOSABLE = (Object.keys(defaultConfig()) as OptionName[]).filter(
  (k) => !(UNDISCLOSABLE as readonly OptionName[]).includes(k),
);

/** `storage`: the block of one kind of store, checked by that kind's schema (src/config/stores/). */
const storageCheck: Check = (v, path, problems) => {
  const kind = storeSchemaOf((v as { type?: unknown } | null)?.type);
  if (!kind || typeof v !== 'object' || v === null) {
    object({ type: oneOf(storeTypes()) }, ['type'])(v, path, problems);
    return;
  }
  object({ type: str(), ...kind.fields }, ['type', ...kind.required])(v, path, problems);
};

/** Checks for the keys PUT /config may change; shared with the runtime override path. */
export const runtimeChecks: { [K in RuntimeKey]: Check } = {
  default_transfer_days_valid: int(1, 36500),
  max_transfer_days_valid: int(1, 36500),
  default_guest_days_valid: int(1, 36500),
  max_guest_days_valid: int(1, 36500),
  allow_transfer_expiry_date_extension: arrayOf(int(1, 36500)),
  max_transfer_size: int(1),
  max_transfer_files: int(1, 10000),
  max_transfer_recipients: int(1, 100000),
  disclose: arrayOf(oneOf(DISCLOSABLE)),
  user_quota: int(0),
  host_quota: int(0),
  // docs/sharing.md, Automatic reminders: days before expiry, each from 1 to 365.
  transfer_automatic_reminder: arrayOf(int(1, 365)),
  guest_automatic_reminder: arrayOf(int(1, 365)),
  base_url: nullable(str(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'an http(s) URL without query')),
};

/** Every option's check: an option without one fails the typecheck, as does a check of no option. */
const optionChecks: { [K in OptionName]: Check } = {
  listen: object({ host: str(/^\S+$/, 'a host name or address'), port: int(0, 65535) }),
  data_dir: str(/\S/, 'a directory path'),
  upload_chunk_size: int(1024, 1 << 30),
  max_concurrent_chunk_uploads: int(1, 100000),
  ...runtimeChecks,
  base_url: str(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'an http(s) URL without query'),
  chunk_upload_security: oneOf(['key', 'auth']),
  admin: arrayOf(str(/\S/, 'a user id')),
  auditlog_enabled: bool,
  auditlog_lifetime_days: int(0, 36500),
  auth: object({
    sp: spCheck,
    remote_application_enabled: bool,
    remote_user_enabled: bool,
    signature_max_age_s: int(1, 86400),
    signature_max_future_s: int(0, 30 * 86400),
  }),
  mail: object({
    from: str(/^[^\s@<>]+@[^\s@<>]+$/, 'an e-mail address'),
    transport: nullable(smtpUrl),
    sink: nullable(object({ host: str(/\S/), port: int(0, 65535), dir: str(/\S/) })),
  }),
  default_lang: str(LANG, 'a language code such as "en"'),
  purge_interval_s: int(0, 365 * 86400),
  encryption_password_must_have_upper_and_lower_case: bool,
  encryption_password_must_have_numbers: bool,
  encryption_password_must_have_special_characters: bool,
  encryption_password_hash_iterations: int(10000, 100_000_000),
  encryption_enabled: bool,
  encryption_mandatory: bool,
  encryption_min_password_length: int(1, 1000),
  log: object({ format: oneOf(['text', 'json']), file: nullable(str(/\S/, 'a file path')), debug: bool }),
  metrics: nullable(object({ allow: arrayOf(ipOrCidr) })),
  trusted_proxies: arrayOf(ipOrCidr),
  database_url: nullable(
    str(/^postgres(ql)?:\/\/[^\s/]+\/[^\s/?#]+(\?\S*)?$/, 'a postgres://user:password@host:port/database URL'),
  ),
  storage: storageCheck,
  // docs/sharing.md, Virus scanning
  antivirus: nullable(
    object(
      {
        clamd: str(
          /^(tcp:\/\/[^\s/:]+:\d{1,5}|unix:\/\S+)$/,
          'a clamd address such as "tcp://127.0.0.1:3310" or "unix:/run/clamav/clamd.ctl"',
        ),
        on_infected: oneOf(['block', 'flag']),
        on_error: oneOf(['hold', 'allow']),
        max_bytes: int(1),
        timeout_s: int(1, 3600),
      },
      ['clamd'],
    ),
  ),
};
const schema = object(optionChecks);

export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    readonly source: string,
  ) {
    super(`${source}: ${problems.length} problem(s) in the configuration:\n  ${problems.join('\n  ')}`);
  }
}

/** Returns every problem found; an empty list means the object is a valid (partial) config. */
export function checkConfig(raw: unknown): string[] {
  const problems: string[] = [];
  schema(raw, '', problems);
  if (problems.length === 0) {
    const merged = mergeConfig(raw as Partial<Config>);
    problems.push(...crossChecks(merged));
  }
  return problems;
}

/** Rules that relate keys to each other, checked on the merged result. */
export function crossChecks(c: Config): string[] {
  const problems: string[] = [];
  if (c.default_transfer_days_valid > c.max_transfer_days_valid)
    problems.push(problem('default_transfer_days_valid', 'must not exceed max_transfer_days_valid'));
  if (c.default_guest_days_valid > c.max_guest_days_valid)
    problems.push(problem('default_guest_days_valid', 'must not exceed max_guest_days_valid'));
  if (c.encryption_mandatory && !c.encryption_enabled)
    problems.push(problem('encryption_mandatory', 'needs encryption_enabled'));
  problems.push(...(storeSchemaOf(c.storage.type)?.problems?.(c.storage) ?? []));
  problems.push(...providerCrossChecks(providerConfigs(c.auth.sp)));
  return problems;
}

export function mergeConfig(raw: Partial<Config>): Config {
  const d = defaultConfig();
  const auth = { ...d.auth, ...(raw.auth ?? {}) };
  const mail = { ...d.mail, ...(raw.mail ?? {}) };
  const dataDir = raw.data_dir ?? d.data_dir;
  if (mail.sink) {
    const sink: Partial<MailSinkConfig> = mail.sink;
    mail.sink = {
      host: sink.host ?? '127.0.0.1',
      port: sink.port ?? 2525,
      dir: sink.dir ?? path.join(dataDir, 'mail-sink'),
    };
  }
  return {
    ...d,
    ...raw,
    listen: { ...d.listen, ...(raw.listen ?? {}) },
    base_url: (raw.base_url ?? d.base_url).replace(/\/+$/, ''),
    auth,
    mail,
    log: { ...d.log, ...(raw.log ?? {}) },
    storage: raw.storage ? { ...storeSchemaOf(raw.storage.type)?.defaults, ...raw.storage } : d.storage,
    antivirus: raw.antivirus ? { ...ANTIVIRUS_DEFAULTS, ...raw.antivirus } : null,
  } as Config;
}

export function validateConfig(raw: unknown, source: string): Config {
  const problems = checkConfig(raw);
  if (problems.length) throw new ConfigError(problems, source);
  return mergeConfig(raw as Partial<Config>);
}
