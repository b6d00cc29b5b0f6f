/**
 * Numbered schema migrations, embedded in the code so the single executable carries them.
 * Applied in order at start-up; PRAGMA user_version records the last one applied. Never edit a released
 * migration: add a new one.
 */
export interface Migration {
  version: number;
  sql: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  lang TEXT,
  aup_ticked INTEGER NOT NULL DEFAULT 0,
  transfer_preferences TEXT NOT NULL DEFAULT '[]',
  guest_preferences TEXT NOT NULL DEFAULT '[]',
  additional_attributes TEXT NOT NULL DEFAULT '{}',
  remote_secret TEXT,
  created INTEGER NOT NULL,
  last_activity INTEGER
);
CREATE TABLE user_emails (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (user_id, email)
);
CREATE TABLE local_accounts (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  password_hash TEXT NOT NULL,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token TEXT NOT NULL,
  created INTEGER NOT NULL,
  last_seen INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE TABLE admins (
  user_id TEXT PRIMARY KEY,
  created INTEGER NOT NULL
);
CREATE TABLE remote_apps (
  name TEXT PRIMARY KEY,
  secret TEXT NOT NULL,
  old_secret TEXT,
  old_secret_until INTEGER,
  is_admin INTEGER NOT NULL DEFAULT 0,
  created INTEGER NOT NULL
);
CREATE TABLE used_signatures (
  signature TEXT PRIMARY KEY,
  expires INTEGER NOT NULL
);
CREATE TABLE guests (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id TEXT NOT NULL,
  user_email TEXT NOT NULL,
  email TEXT NOT NULL,
  token TEXT NOT NULL UNIQUE,
  subject TEXT,
  message TEXT,
  options TEXT NOT NULL DEFAULT '[]',
  transfer_options TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL,
  transfer_count INTEGER NOT NULL DEFAULT 0,
  lang TEXT,
  created INTEGER NOT NULL,
  expires INTEGER,
  last_activity INTEGER,
  closed INTEGER
);
CREATE INDEX guests_user ON guests(user_id);
CREATE TABLE transfers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id TEXT NOT NULL,
  user_email TEXT NOT NULL,
  guest_id INTEGER REFERENCES guests(id) ON DELETE SET NULL,
  subject TEXT,
  message TEXT,
  options TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL,
  lang TEXT,
  created INTEGER NOT NULL,
  expires INTEGER NOT NULL,
  expiry_extensions_used INTEGER NOT NULL DEFAULT 0,
  made_available INTEGER,
  closed INTEGER,
  closed_reason TEXT
);
CREATE INDEX transfers_user ON transfers(user_id);
CREATE INDEX transfers_guest ON transfers(guest_id);
CREATE INDEX transfers_expires ON transfers(status, expires);
CREATE TABLE files (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  transfer_id INTEGER NOT NULL REFERENCES transfers(id) ON DELETE CASCADE,
  uid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  size INTEGER NOT NULL,
  mime_type TEXT,
  cid TEXT,
  received INTEGER NOT NULL DEFAULT 0,
  ranges TEXT NOT NULL DEFAULT '[]',
  complete INTEGER NOT NULL DEFAULT 0,
  crc32 INTEGER,
  sha256 TEXT,
  created INTEGER NOT NULL,
  deleted INTEGER
);
CREATE INDEX files_transfer ON files(transfer_id);
CREATE TABLE recipients (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  transfer_id INTEGER NOT NULL REFERENCES transfers(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  token TEXT NOT NULL UNIQUE,
  lang TEXT,
  created INTEGER NOT NULL,
  last_activity INTEGER,
  deleted INTEGER,
  download_complete_notified INTEGER
);
CREATE INDEX recipients_transfer ON recipients(transfer_id);
CREATE TABLE tracking_errors (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  target_type TEXT NOT NULL,
  target_id INTEGER NOT NULL,
  type TEXT NOT NULL,
  date INTEGER NOT NULL,
  details TEXT NOT NULL
);
CREATE INDEX tracking_errors_target ON tracking_errors(target_type, target_id);
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  transfer_id INTEGER NOT NULL,
  date INTEGER NOT NULL,
  event TEXT NOT NULL,
  author_type TEXT NOT NULL,
  author_id TEXT NOT NULL,
  author_ip TEXT,
  author_email TEXT,
  target_type TEXT NOT NULL,
  target_id TEXT NOT NULL,
  target_name TEXT,
  target_size INTEGER,
  target_email TEXT
);
CREATE INDEX audit_log_transfer ON audit_log(transfer_id, id);
CREATE TABLE frequent_recipients (
  user_id TEXT NOT NULL,
  email TEXT NOT NULL,
  last_used INTEGER NOT NULL,
  PRIMARY KEY (user_id, email)
);
CREATE TABLE mail_queue (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created INTEGER NOT NULL,
  to_addr TEXT NOT NULL,
  message TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt INTEGER NOT NULL,
  last_error TEXT,
  sent INTEGER,
  target_type TEXT,
  target_id INTEGER
);
CREATE INDEX mail_queue_due ON mail_queue(status, next_attempt);
CREATE TABLE config_overrides (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
  },
  {
    // Which files each recipient has received whole, so "download complete" fires once, after every byte.
    version: 7,
    sql: `
CREATE TABLE recipient_downloads (
  recipient_id INTEGER NOT NULL REFERENCES recipients(id) ON DELETE CASCADE,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  date INTEGER NOT NULL,
  PRIMARY KEY (recipient_id, file_id)
);
`,
  },
  {
    // FileSender's round-trip token of each Transfer (issue 16: FileSender's own clients).
    version: 8,
    sql: `
ALTER TABLE transfers ADD COLUMN roundtrip_token TEXT;
`,
  },
  {
    // End-to-end encryption: a transfer's parameters (JSON; never a password or key) and each file's IV and AEAD.
    version: 9,
    sql: `
ALTER TABLE transfers ADD COLUMN encryption TEXT;
ALTER TABLE files ADD COLUMN iv TEXT;
ALTER TABLE files ADD COLUMN aead TEXT;
`,
  },
];
