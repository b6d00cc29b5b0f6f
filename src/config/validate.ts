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
import { z } from 'zod';
import { zArrayOf, zBool, zInt, zIpOrCidr, zKinded, zObject, zOneOf, zSmtpUrl, zStr, zodProblems } from './zod-checks';
import { providerCrossChecks, spSchema } from '../auth/providers/auth-sp';
import { providerConfigs } from '../auth/providers/registry';
import { storageWithDefaults, storeSchemaOf, storeTypes } from './stores';

// Validates a parsed config object against the schema of docs/architecture.md, Configuration (in zod, worded by
// src/config/zod-checks.ts) and merges it over the defaults. Every problem is collected (with the key's path) so
// an admin fixes the file in one go.

const LANG = /^[a-z]{2}(-[A-Za-z]{2})?$/;
export const DISCLOSABLE = (Object.keys(defaultConfig()) as OptionName[]).filter(
  (k) => !(UNDISCLOSABLE as readonly OptionName[]).includes(k),
) as [OptionName, ...OptionName[]];
const HTTP_URL = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;

/** `storage`: the block of one kind of store, checked by that kind's schema (src/config/stores/). */
const storageSchema = zKinded((type) => storeSchemaOf(type)?.schema, storeTypes);

/** The schemas of the keys PUT /config may change; shared with the runtime override path. */
export const runtimeSchemas = {
  default_transfer_days_valid: zInt(1, 36500),
  max_transfer_days_valid: zInt(1, 36500),
  default_guest_days_valid: zInt(1, 36500),
  max_guest_days_valid: zInt(1, 36500),
  allow_transfer_expiry_date_extension: zArrayOf(zInt(1, 36500)),
  max_transfer_size: zInt(1),
  max_transfer_files: zInt(1, 10000),
  max_transfer_recipients: zInt(1, 100000),
  disclose: zArrayOf(zOneOf(DISCLOSABLE)),
  user_quota: zInt(0),
  host_quota: zInt(0),
  // docs/sharing.md, Automatic reminders: days before expiry, each from 1 to 365.
  transfer_automatic_reminder: zArrayOf(zInt(1, 365)),
  guest_automatic_reminder: zArrayOf(zInt(1, 365)),
  base_url: zStr(HTTP_URL, 'an http(s) URL without query').nullable(),
} satisfies { [K in RuntimeKey]: z.ZodType };

/** Every option's schema: an option without one fails the typecheck, as does a schema of no option. */
const optionSchemas = {
  listen: zObject({
    host: zStr(/^\S+$/, 'a host name or address').optional(),
    port: zInt(0, 65535).optional(),
  }),
  data_dir: zStr(/\S/, 'a directory path'),
  upload_chunk_size: zInt(1024, 1 << 30),
  max_concurrent_chunk_uploads: zInt(1, 100000),
  ...runtimeSchemas,
  base_url: zStr(HTTP_URL, 'an http(s) URL without query'),
  chunk_upload_security: zOneOf(['key', 'auth']),
  admin: zArrayOf(zStr(/\S/, 'a user id')),
  auditlog_enabled: zBool(),
  auditlog_lifetime_days: zInt(0, 36500),
  auth: zObject({
    sp: spSchema.optional(),
    remote_application_enabled: zBool().optional(),
    remote_user_enabled: zBool().optional(),
    signature_max_age_s: zInt(1, 86400).optional(),
    signature_max_future_s: zInt(0, 30 * 86400).optional(),
  }),
  mail: zObject({
    from: zStr(/^[^\s@<>]+@[^\s@<>]+$/, 'an e-mail address').optional(),
    transport: zSmtpUrl().nullable().optional(),
    sink: zObject({
      host: zStr(/\S/).optional(),
      port: zInt(0, 65535).optional(),
      dir: zStr(/\S/).optional(),
    })
      .nullable()
      .optional(),
  }),
  default_lang: zStr(LANG, 'a language code such as "en"'),
  purge_interval_s: zInt(0, 365 * 86400),
  encryption_password_must_have_upper_and_lower_case: zBool(),
  encryption_password_must_have_numbers: zBool(),
  encryption_password_must_have_special_characters: zBool(),
  encryption_password_hash_iterations: zInt(10000, 100_000_000),
  encryption_enabled: zBool(),
  encryption_mandatory: zBool(),
  encryption_min_password_length: zInt(1, 1000),
  log: zObject({
    format: zOneOf(['text', 'json']).optional(),
    file: zStr(/\S/, 'a file path').nullable().optional(),
    debug: zBool().optional(),
  }),
  metrics: zObject({ allow: zArrayOf(zIpOrCidr()).optional() }).nullable(),
  trusted_proxies: zArrayOf(zIpOrCidr()),
  database_url: zStr(
    /^postgres(ql)?:\/\/[^\s/]+\/[^\s/?#]+(\?\S*)?$/,
    'a postgres://user:password@host:port/database URL',
  ).nullable(),
  storage: storageSchema,
  // docs/sharing.md, Virus scanning
  antivirus: zObject({
    clamd: zStr(
      /^(tcp:\/\/[^\s/:]+:\d{1,5}|unix:\/\S+)$/,
      'a clamd address such as "tcp://127.0.0.1:3310" or "unix:/run/clamav/clamd.ctl"',
    ),
    on_infected: zOneOf(['block', 'flag']).optional(),
    on_error: zOneOf(['hold', 'allow']).optional(),
    max_bytes: zInt(1).optional(),
    timeout_s: zInt(1, 3600).optional(),
  }).nullable(),
} satisfies { [K in OptionName]: z.ZodType };
/** The file: any option, each optional (the defaults fill in the rest). */
const schema = zObject(optionSchemas).partial();

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
  const { problems } = zodProblems(schema, raw);
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
    storage: raw.storage ? storageWithDefaults(raw.storage) : d.storage,
    antivirus: raw.antivirus ? { ...ANTIVIRUS_DEFAULTS, ...raw.antivirus } : null,
  } as Config;
}

export function validateConfig(raw: unknown, source: string): Config {
  const problems = checkConfig(raw);
  if (problems.length) throw new ConfigError(problems, source);
  return mergeConfig(raw as Partial<Config>);
}
