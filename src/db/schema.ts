import type { Generated } from 'kysely';

/**
 * The tables as Kysely sees them (src/db/migrations.ts creates them). Integers are JavaScript numbers on both
 * databases: PostgreSQL's BIGINT is parsed to a number (every value ferry stores is a safe integer), and
 * booleans are stored as 0/1 on both.
 */
export interface UsersTable {
  id: string;
  lang: string | null;
  aup_ticked: Generated<number>;
  transfer_preferences: Generated<string>;
  guest_preferences: Generated<string>;
  additional_attributes: Generated<string>;
  remote_secret: string | null;
  created: number;
  last_activity: number | null;
  /** Bytes this user may hold in transfers not closed; null: the config's user_quota. */
  quota: number | null;
  /** The name an identity provider gave at the last sign-in. */
  display_name: string | null;
  /** The identity provider (auth.sp[].id; "local") the account belongs to; null: not attributed (older rows). */
  provider: string | null;
  /** The provider said at the last sign-in that the person is an admin (admin_groups, admin_values). */
  provider_admin: Generated<number>;
}
export interface UserLinksTable {
  user_id: string;
  provider: string;
  created: number;
}
export interface UserEmailsTable {
  user_id: string;
  email: string;
  position: number;
}
export interface LocalAccountsTable {
  user_id: string;
  password_hash: string;
  created: number;
  updated: number;
}
export interface SessionsTable {
  id: string;
  user_id: string;
  csrf_token: string;
  created: number;
  last_seen: number;
  /** The identity provider (auth.sp[].id) that made the session. */
  provider: Generated<string>;
  provider_admin: Generated<number>;
  provider_ref: string | null;
  provider_data: string | null;
}
export interface AdminsTable {
  user_id: string;
  created: number;
}
export interface RemoteAppsTable {
  name: string;
  secret: string;
  old_secret: string | null;
  old_secret_until: number | null;
  is_admin: Generated<number>;
  created: number;
}
export interface UsedSignaturesTable {
  signature: string;
  expires: number;
}
export interface GuestsTable {
  id: Generated<number>;
  user_id: string;
  user_email: string;
  email: string;
  token: string;
  subject: string | null;
  message: string | null;
  options: Generated<string>;
  transfer_options: Generated<string>;
  status: string;
  transfer_count: Generated<number>;
  lang: string | null;
  created: number;
  expires: number | null;
  last_activity: number | null;
  closed: number | null;
}
export interface TransfersTable {
  id: Generated<number>;
  user_id: string;
  user_email: string;
  guest_id: number | null;
  subject: string | null;
  message: string | null;
  options: Generated<string>;
  status: string;
  lang: string | null;
  created: number;
  expires: number;
  expiry_extensions_used: Generated<number>;
  made_available: number | null;
  closed: number | null;
  closed_reason: string | null;
  roundtrip_token: string | null;
  encryption: string | null;
  complete_by: string | null;
}
export interface FilesTable {
  id: Generated<number>;
  transfer_id: number;
  uid: string;
  name: string;
  size: number;
  mime_type: string | null;
  cid: string | null;
  received: Generated<number>;
  ranges: Generated<string>;
  complete: Generated<number>;
  crc32: number | null;
  sha256: string | null;
  created: number;
  deleted: number | null;
  iv: string | null;
  aead: string | null;
  store_upload: string | null;
  digest_claim: number | null;
  assembly_by: string | null;
  assembly_claim: number | null;
}
export interface FilePiecesTable {
  file_id: number;
  start_at: number;
  end_at: number;
  crc32: number | null;
  receipt: string;
}
export interface RecipientsTable {
  id: Generated<number>;
  transfer_id: number;
  email: string;
  token: string;
  lang: string | null;
  created: number;
  last_activity: number | null;
  deleted: number | null;
  download_complete_notified: number | null;
}
export interface TrackingErrorsTable {
  id: Generated<number>;
  target_type: string;
  target_id: number;
  type: string;
  date: number;
  details: string;
}
export interface AuditLogTable {
  id: Generated<number>;
  transfer_id: number;
  date: number;
  event: string;
  author_type: string;
  author_id: string;
  author_ip: string | null;
  author_email: string | null;
  target_type: string;
  target_id: string;
  target_name: string | null;
  target_size: number | null;
  target_email: string | null;
  detail: string | null;
}
export interface FrequentRecipientsTable {
  user_id: string;
  email: string;
  last_used: number;
  seq: Generated<number>;
}
export interface MailQueueTable {
  id: Generated<number>;
  created: number;
  to_addr: string;
  message: string;
  status: Generated<string>;
  attempts: Generated<number>;
  next_attempt: number;
  last_error: string | null;
  sent: number | null;
  target_type: string | null;
  target_id: number | null;
  claimed_by: string | null;
}
export interface NodesTable {
  name: string;
  release: string;
  feature_level: number;
  started: number;
  seen: number;
}
export interface FeatureLevelTable {
  id: number;
  level: number;
}
export interface ConfigOverridesTable {
  key: string;
  value: string;
}
export interface RecipientDownloadsTable {
  recipient_id: number;
  file_id: number;
  date: number;
}
export interface LoginFailuresTable {
  id: Generated<number>;
  key: string;
  at: number;
}
export interface LoginDevicesTable {
  id: string;
  user_id: string;
  created: number;
  last_used: number;
}
export interface LocksTable {
  name: string;
  holder: string;
  until: number;
}

/** One row a day: the bytes the file store held when the day's sample was taken (usage overview). */
export interface StorageSamplesTable {
  day: string;
  bytes: number;
  taken: number;
}

/** A transfer's sharing controls (docs/sharing.md); no row: none. */
export interface TransferSharingTable {
  transfer_id: number;
  download_limit: number | null;
  password_hash: string | null;
}

/** A download of a file a link began (claimed) and, once its last byte went out, completed (done). */
export interface DownloadClaimsTable {
  id: Generated<number>;
  recipient_id: number;
  file_id: number;
  claimed: number;
  /** 1 while a response is sending on it (see lease); 0 once none is. */
  active: Generated<number>;
  done: number | null;
  /** The byte ranges of the file its responses sent, as JSON [[start, end), …] (sorted, merged). */
  sent: Generated<string>;
  /** Bytes its responses sent again (a resume from before where a cut response stopped). */
  resent: Generated<number>;
  /** The random token of the response holding it, until lease_until (seconds); null when none does. */
  lease: string | null;
  lease_until: Generated<number>;
}

/** An automatic reminder sent: one row per Recipient or Guest and day-mark, claimed before the mail. */
export interface AutomaticRemindersTable {
  target_type: string;
  target_id: number;
  days: number;
  sent: number;
}

/** A completed transfer's virus scan (docs/sharing.md, Virus scanning). */
export interface VirusScansTable {
  transfer_id: number;
  state: string;
  started: number;
  finished: number | null;
  /** Until when the node scanning it holds it (UNIX seconds); null when nobody does. */
  claim_until: number | null;
  /** When a held scan is tried again. */
  retry_at: number;
  error: string | null;
}

/** A file clamd found infected, with the signature it named. */
export interface VirusFindingsTable {
  file_id: number;
  transfer_id: number;
  signature: string;
}

/** A transfer or guest `ferry import filesender` brought over under its FileSender id. */
export interface ImportedRecordsTable {
  kind: string;
  id: number;
  source: string;
  imported: number;
}

export interface DB {
  users: UsersTable;
  user_emails: UserEmailsTable;
  local_accounts: LocalAccountsTable;
  user_links: UserLinksTable;
  sessions: SessionsTable;
  admins: AdminsTable;
  remote_apps: RemoteAppsTable;
  used_signatures: UsedSignaturesTable;
  guests: GuestsTable;
  transfers: TransfersTable;
  files: FilesTable;
  file_pieces: FilePiecesTable;
  recipients: RecipientsTable;
  tracking_errors: TrackingErrorsTable;
  audit_log: AuditLogTable;
  frequent_recipients: FrequentRecipientsTable;
  mail_queue: MailQueueTable;
  config_overrides: ConfigOverridesTable;
  recipient_downloads: RecipientDownloadsTable;
  login_failures: LoginFailuresTable;
  login_devices: LoginDevicesTable;
  locks: LocksTable;
  storage_samples: StorageSamplesTable;
  transfer_sharing: TransferSharingTable;
  download_claims: DownloadClaimsTable;
  automatic_reminders: AutomaticRemindersTable;
  virus_scans: VirusScansTable;
  virus_findings: VirusFindingsTable;
  imported_records: ImportedRecordsTable;
  user_usage: UserUsageTable;
  nodes: NodesTable;
  feature_level: FeatureLevelTable;
}

/**
 * Running totals of quota use, kept by the database's triggers (migration 29). Not in TABLES: a copy rebuilds
 * them from the rows it writes.
 */
export interface UserUsageTable {
  user_id: string;
  open_bytes: number;
}

/**
 * Every table in the order a copy must fill them (parents before the rows that reference them), with the
 * columns that order its rows. `ferry db copy` and its test walk this list. All but `nodes`: the nodes running
 * on the source do not run on the copy.
 */
export const TABLES: { name: keyof DB; orderBy: string[]; identity: boolean }[] = [
  { name: 'users', orderBy: ['id'], identity: false },
  { name: 'user_emails', orderBy: ['user_id', 'email'], identity: false },
  { name: 'local_accounts', orderBy: ['user_id'], identity: false },
  { name: 'user_links', orderBy: ['user_id', 'provider'], identity: false },
  { name: 'sessions', orderBy: ['id'], identity: false },
  { name: 'admins', orderBy: ['user_id'], identity: false },
  { name: 'remote_apps', orderBy: ['name'], identity: false },
  { name: 'used_signatures', orderBy: ['signature'], identity: false },
  { name: 'guests', orderBy: ['id'], identity: true },
  { name: 'transfers', orderBy: ['id'], identity: true },
  { name: 'files', orderBy: ['id'], identity: true },
  { name: 'file_pieces', orderBy: ['file_id', 'start_at', 'end_at'], identity: false },
  { name: 'recipients', orderBy: ['id'], identity: true },
  { name: 'tracking_errors', orderBy: ['id'], identity: true },
  { name: 'audit_log', orderBy: ['id'], identity: true },
  { name: 'frequent_recipients', orderBy: ['user_id', 'email'], identity: false },
  { name: 'mail_queue', orderBy: ['id'], identity: true },
  { name: 'config_overrides', orderBy: ['key'], identity: false },
  { name: 'recipient_downloads', orderBy: ['recipient_id', 'file_id'], identity: false },
  { name: 'login_failures', orderBy: ['id'], identity: true },
  { name: 'login_devices', orderBy: ['id', 'user_id'], identity: false },
  { name: 'locks', orderBy: ['name'], identity: false },
  { name: 'storage_samples', orderBy: ['day'], identity: false },
  { name: 'transfer_sharing', orderBy: ['transfer_id'], identity: false },
  { name: 'download_claims', orderBy: ['id'], identity: true },
  { name: 'automatic_reminders', orderBy: ['target_type', 'target_id', 'days'], identity: false },
  { name: 'feature_level', orderBy: ['id'], identity: false },
  { name: 'virus_scans', orderBy: ['transfer_id'], identity: false },
  { name: 'virus_findings', orderBy: ['file_id'], identity: false },
  { name: 'imported_records', orderBy: ['kind', 'id'], identity: false },
];
