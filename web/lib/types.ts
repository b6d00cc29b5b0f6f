/** The REST API's resources as the browser reads them (spec: "Resources and their fields"). */
export interface ApiDate {
  raw: number;
  formatted: string;
}

export interface ApiFile {
  id: number;
  transfer_id: number;
  uid: string;
  name: string;
  size: number;
  cid?: string;
  /** Extension (docs/architecture.md, Data and storage): bytes stored so far. */
  received?: number;
  /** Extension, when the server exposes it: received byte ranges, half-open [start, end). */
  ranges?: [number, number][];
  complete?: boolean;
}

export interface ApiTrackingError {
  type: string;
  date: ApiDate;
  details: string;
}

/** Extension: what became of the latest mail to a recipient (README, Mail). */
export interface ApiDelivery {
  /** `kept`: written to the built-in inbox only, no mail transport configured (not delivered). */
  state: 'queued' | 'deferred' | 'bounced' | 'sent' | 'kept';
  date: ApiDate;
  reason: string | null;
  attempts: number;
  next_attempt: ApiDate | null;
}

export interface ApiRecipient {
  id: number;
  transfer_id: number;
  token: string;
  email: string;
  created: ApiDate;
  last_activity: ApiDate | null;
  download_url: string;
  errors: ApiTrackingError[];
  delivery?: ApiDelivery | null;
}

export interface ApiTransfer {
  id: number;
  user_id: string;
  user_email: string;
  subject: string | null;
  message: string | null;
  created: ApiDate;
  expires: ApiDate;
  expiry_date_extension?: number;
  options: string[];
  files: ApiFile[];
  recipients: ApiRecipient[];
  status?: string;
  /** Extension: its completion waits for files assembled in the background (very large files on S3). */
  completing?: boolean;
  /** Extension: when it was closed. */
  closed?: ApiDate | null;
  /** Extension: the guest who sent it, when a guest did. */
  guest_id?: number | null;
  /** Extension (docs/sharing.md, Virus scanning): null when scanning is off. */
  virus_scan?: {
    status: string;
    blocked: boolean;
    error: string | null;
    files: { file_id: number; signature: string }[];
  } | null;
}

export interface ApiGuest {
  id: number;
  user_id: string;
  user_email: string;
  email: string;
  token: string;
  transfer_count: number;
  subject: string | null;
  message: string | null;
  options: string[];
  transfer_options: string[];
  created: ApiDate;
  expires: ApiDate | null;
  errors: ApiTrackingError[];
  /** Extension: the guest's upload page. */
  upload_url: string;
  /** Extension: 'available' or 'closed'. */
  status?: string;
}

export interface ApiAuditEntry {
  date: ApiDate;
  event: string;
  author: { type: string; id: string; ip?: string; email?: string };
  target: { type: string; id: string; name?: string; size?: number; email?: string };
  /** Extension: what the event found (a virus scan's signature, why a scan failed). */
  detail?: string;
}

export interface ApiUser {
  id: string;
  lang: string | null;
  frequent_recipients: string[];
  transfer_preferences: string[];
  guest_preferences: string[];
  remote_config: string | null;
  created: ApiDate;
  last_activity: ApiDate | null;
  additional_attributes?: Record<string, unknown>;
  email?: string[];
}

/** GET /info: `url` always, the rest when disclosed. */
export interface ApiInfo {
  url: string;
  version?: string;
  upload_chunk_size?: number;
  default_transfer_days_valid?: number;
  max_transfer_days_valid?: number;
  default_guest_days_valid?: number;
  max_guest_days_valid?: number;
  max_transfer_size?: number;
  max_transfer_files?: number;
  max_transfer_recipients?: number;
  allow_transfer_expiry_date_extension?: number[];
  chunk_upload_security?: 'key' | 'auth';
  default_lang?: string;
  // End-to-end encryption, as disclosed (docs/encryption.md).
  encryption_enabled?: boolean;
  encryption_mandatory?: boolean;
  encryption_min_password_length?: number;
  encryption_password_must_have_upper_and_lower_case?: boolean;
  encryption_password_must_have_numbers?: boolean;
  encryption_password_must_have_special_characters?: boolean;
  encryption_password_hash_iterations?: number;
}
