/** The configuration ferry runs with when no file says otherwise (docs/architecture.md, Configuration). */
import type { SpInput } from '../auth/providers/registry';
import type { StorageConfig } from './stores';
import { LOCAL_OWNER } from '../domain/account-owners';

export type { SpConfig, SpInput } from '../auth/providers/registry';
export type { StorageConfig } from './stores';
export interface AuthConfig {
  /**
   * The identity providers people sign in with: one, or a list shown side by side on the login page
   * (docs/single-sign-on.md). Each kind's keys and defaults: src/auth/providers/<kind>/config.ts.
   */
  sp: SpInput | SpInput[];
  remote_application_enabled: boolean;
  remote_user_enabled: boolean;
  signature_max_age_s: number;
  signature_max_future_s: number;
}
export interface MailSinkConfig {
  host: string;
  port: number;
  dir: string;
}
export interface MailConfig {
  from: string;
  /** A nodemailer smtp(s):// URL; null: mail is kept in the built-in inbox, not delivered (docs/configuration.md, Mail). */
  transport: string | null;
  sink: MailSinkConfig | null;
}
export interface LogConfig {
  /** "text": the readable line; "json": one JSON object per line, for log collectors. */
  format: 'text' | 'json';
  /** A file to append to (reopened on SIGHUP, for logrotate); null: standard output and error. */
  file: string | null;
  /** Internal errors are logged with their stack trace (off: one line with the error's uid). */
  debug: boolean;
}
export interface MetricsConfig {
  /** Peers (exact IP addresses or CIDR ranges) that may read GET /metrics. */
  allow: string[];
}
export interface Config {
  base_url: string;
  listen: { host: string; port: number };
  data_dir: string;
  upload_chunk_size: number;
  /** Chunk uploads one user, guest or remote application may have in progress at once; more answer 429. */
  max_concurrent_chunk_uploads: number;
  default_transfer_days_valid: number;
  max_transfer_days_valid: number;
  default_guest_days_valid: number;
  max_guest_days_valid: number;
  allow_transfer_expiry_date_extension: number[];
  max_transfer_size: number;
  max_transfer_files: number;
  max_transfer_recipients: number;
  chunk_upload_security: 'key' | 'auth';
  /** Options GET /info and filesender-config.js.php show to anyone (plain values only: never a block or a secret). */
  disclose: DisclosableOption[];
  admin: string[];
  auditlog_enabled: boolean;
  auditlog_lifetime_days: number;
  auth: AuthConfig;
  mail: MailConfig;
  default_lang: string;
  purge_interval_s: number;
  /**
   * Rules for the passwords of end-to-end encrypted transfers and the PBKDF2 iterations of new ones. The
   * server never sees a password: these are told to clients (filesender-config.js.php), which apply them.
   */
  encryption_password_must_have_upper_and_lower_case: boolean;
  encryption_password_must_have_numbers: boolean;
  encryption_password_must_have_special_characters: boolean;
  encryption_password_hash_iterations: number;
  /** End-to-end encryption (FileSender's format, docs/encryption.md) is offered to senders. */
  encryption_enabled: boolean;
  /** Every new transfer must be encrypted: an unencrypted one is refused (400 transfer_must_be_encrypted). */
  encryption_mandatory: boolean;
  /** Shortest password a sender may type; told to clients, which enforce it (the server never sees it). */
  encryption_min_password_length: number;
  log: LogConfig;
  /**
   * null: the metadata lives in SQLite under data_dir; "postgres://user:pass@host:port/db": in PostgreSQL 15 or
   * later, shared by every node. The environment variable FERRY_DATABASE_URL overrides it.
   */
  database_url: string | null;
  /**
   * Where file data lives: under data_dir/files (`fs`, the default), or in an S3-compatible bucket (`s3`), as
   * several nodes need. Each kind's keys, defaults and checks: src/config/stores/.
   */
  storage: StorageConfig;
  /** null: GET /metrics answers 404; else Prometheus text for the peers in `allow` only. */
  metrics: MetricsConfig | null;
  /**
   * Reverse proxies (exact IP addresses or CIDR ranges) whose X-Forwarded-For / X-Real-IP name the client: the
   * one client-address rule of src/auth/client-address.ts (throttles, /metrics, the audit log).
   */
  trusted_proxies: string[];
  /**
   * Bytes one user may hold in transfers not closed (created, started, uploading, available); 0 = no limit.
   * An admin may set another figure for one user (the Users tab). Checked at POST /transfer.
   */
  user_quota: number;
  /** Bytes all transfers not closed may hold together; 0 = no limit. Checked at POST /transfer. */
  host_quota: number;
  /** docs/sharing.md, Automatic reminders: days before expiry at which recipients / unused invitations are reminded. */
  transfer_automatic_reminder: number[];
  guest_automatic_reminder: number[];
  /**
   * docs/sharing.md, Virus scanning: null (the default) scans nothing; else every completed transfer's files
   * are streamed to this clamd before its recipients are told.
   */
  antivirus: AntivirusConfig | null;
}

export interface AntivirusConfig {
  /** "tcp://host:port" or "unix:/path/to/clamd.ctl". */
  clamd: string;
  /** A file clamd finds infected: the transfer is blocked (never made available), or flagged and made available. */
  on_infected: 'block' | 'flag';
  /** clamd down, failing or later than timeout_s: the transfer is held (retried, shown to admins), or goes on unscanned. */
  on_error: 'hold' | 'allow';
  /** Files larger than this are not sent to clamd (keep it within clamd's StreamMaxLength); the log says so. */
  max_bytes: number;
  /** Seconds clamd may stay silent (not reading, or not answering) before the scan counts as failed. */
  timeout_s: number;
}

export const ANTIVIRUS_DEFAULTS: Omit<AntivirusConfig, 'clamd'> = {
  on_infected: 'block',
  on_error: 'hold',
  max_bytes: 104857600,
  timeout_s: 60,
};

export function defaultConfig(): Config {
  return {
    base_url: 'http://localhost:8080',
    listen: { host: '127.0.0.1', port: 8080 },
    data_dir: './data',
    upload_chunk_size: 5242880,
    max_concurrent_chunk_uploads: 100,
    default_transfer_days_valid: 10,
    max_transfer_days_valid: 20,
    default_guest_days_valid: 20,
    max_guest_days_valid: 20,
    allow_transfer_expiry_date_extension: [7, 7],
    max_transfer_size: 107374182400,
    max_transfer_files: 30,
    max_transfer_recipients: 50,
    chunk_upload_security: 'key',
    disclose: [
      'upload_chunk_size',
      'default_transfer_days_valid',
      'max_transfer_days_valid',
      'default_guest_days_valid',
      'max_guest_days_valid',
      'max_transfer_size',
      'max_transfer_files',
      'max_transfer_recipients',
      'allow_transfer_expiry_date_extension',
      'chunk_upload_security',
      'default_lang',
      'encryption_enabled',
      'encryption_mandatory',
      'encryption_min_password_length',
      'encryption_password_must_have_upper_and_lower_case',
      'encryption_password_must_have_numbers',
      'encryption_password_must_have_special_characters',
      'encryption_password_hash_iterations',
    ],
    admin: [],
    auditlog_enabled: true,
    auditlog_lifetime_days: 31,
    auth: {
      sp: { type: LOCAL_OWNER },
      remote_application_enabled: true,
      remote_user_enabled: true,
      signature_max_age_s: 15,
      signature_max_future_s: 86400,
    },
    // No transport: mail is kept in the built-in inbox (<data_dir>/mail-sink), so a fresh install loses none.
    mail: { from: 'ferry@localhost', transport: null, sink: null },
    default_lang: 'en',
    purge_interval_s: 3600,
    encryption_password_must_have_upper_and_lower_case: true,
    encryption_password_must_have_numbers: true,
    encryption_password_must_have_special_characters: true,
    // PBKDF2-HMAC-SHA256 as OWASP recommends it (2023); FileSender's default is 150,000.
    encryption_password_hash_iterations: 600000,
    encryption_enabled: true,
    encryption_mandatory: false,
    encryption_min_password_length: 12,
    log: { format: 'text', file: null, debug: false },
    database_url: null,
    storage: { type: 'fs' },
    metrics: null,
    // A reverse proxy on the same host, the setup docs/deploying.md describes.
    trusted_proxies: ['127.0.0.0/8', '::1'],
    user_quota: 0,
    host_quota: 0,
    transfer_automatic_reminder: [],
    guest_automatic_reminder: [],
    antivirus: null,
  };
}

/**
 * The name of an option of the config file: a key of Config. Validation problems, PUT /config, its overrides in
 * the database and the environment's overrides name options by it, so a misspelt name fails the typecheck.
 */
export type OptionName = keyof Config;

/** Options `disclose` may not name: blocks, secrets and what only concerns this machine. */
export const UNDISCLOSABLE = [
  'auth',
  'mail',
  'admin',
  'data_dir',
  'listen',
  'log',
  'database_url',
  'metrics',
  'trusted_proxies',
  'storage',
  'antivirus',
] as const satisfies readonly OptionName[];
export type DisclosableOption = Exclude<OptionName, (typeof UNDISCLOSABLE)[number]>;

/** A problem with an option, as validation and PUT /config report it: "option: what is wrong". */
export function problem(option: OptionName, text: string): string {
  return `${option}: ${text}`;
}

/** Keys an admin may change at run time through PUT /config (docs/architecture.md, Configuration). */
export const RUNTIME_KEYS = [
  'default_transfer_days_valid',
  'max_transfer_days_valid',
  'default_guest_days_valid',
  'max_guest_days_valid',
  'allow_transfer_expiry_date_extension',
  'max_transfer_size',
  'max_transfer_files',
  'max_transfer_recipients',
  'disclose',
  'user_quota',
  'host_quota',
  'transfer_automatic_reminder',
  'guest_automatic_reminder',
  // The public address links are built from: an admin may set it from the web pages (null: the config's, or
  // the address listened on). Settings.compose handles it apart from the others.
  'base_url',
] as const satisfies readonly OptionName[];
export type RuntimeKey = (typeof RUNTIME_KEYS)[number];

/** Whether a name (a key of PUT /config's body, of a stored override) is an option PUT /config may change. */
export function isRuntimeKey(name: string): name is RuntimeKey {
  return (RUNTIME_KEYS as readonly string[]).includes(name);
}

/** Runtime overrides by option (PUT /config's body, the rows of config_overrides): JSON values, checked on use. */
export type Overrides = Partial<Record<RuntimeKey, unknown>>;
