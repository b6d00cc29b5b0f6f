import type { Config } from '../../config/defaults';

/**
 * The settings FileSender's clients read from `{site}/filesender-config.js.php` (its web pages load it as a
 * script; its command-line client filesender.py fetches it and reads values out of the text with regular
 * expressions, one `name: value` per line, strings in single quotes). The file is public, so it holds only what
 * GET /info discloses (base_url and the keys named in `disclose`) plus settings meant for clients: how many
 * chunks to send at once and how long to wait for one, and the rules of end-to-end encryption.
 */
export function filesenderConfigScript(config: Config, version: string): string {
  // One line per name (clients read the first match): a disclosed key that is also a client setting appears once.
  const values = new Map<string, unknown>([['site_url', `${config.base_url}/`]]);
  for (const key of config.disclose) {
    if (key in config) values.set(key, config[key]);
  }
  for (const [k, v] of clientSettings(config)) values.set(k, v);
  const lines = [...values].map(([k, v]) => `    ${k}: ${jsValue(v)},`);
  return [
    `// FileSender-compatible client settings, written by ferry ${version} from its configuration.`,
    '(function (root) {',
    '  root.filesender = root.filesender || {};',
    '  root.filesender.config = {',
    ...lines,
    '  };',
    "})(typeof window !== 'undefined' ? window : globalThis);",
    '',
  ].join('\n');
}

/** Chunks in flight per upload: what ferry's own page sends, within the per-user cap on chunk uploads. */
const WORKERS = 4;
/** How long a client waits for one chunk request (filesender.py uses it as its HTTP timeout). */
const CHUNK_TIMEOUT_MS = 180_000;
/** How often a client retries a failed chunk before giving up. */
const CHUNK_RETRIES = 20;

function clientSettings(c: Config): [string, unknown][] {
  return [
    ['terasender_enabled', true],
    ['terasender_worker_count', Math.max(1, Math.min(WORKERS, c.max_concurrent_chunk_uploads))],
    ['terasender_worker_max_chunk_retries', CHUNK_RETRIES],
    ['terasender_worker_start_must_complete_within_ms', CHUNK_TIMEOUT_MS],
    // End-to-end encryption in FileSender's format (key version 3: AES-GCM, PBKDF2-SHA-256, 16-byte IVs of
    // which the last 4 bytes number the chunk; docs/encryption.md). The password rules are for the client to
    // enforce: the server never sees a password.
    ['encryption_enabled', c.encryption_enabled],
    ['encryption_mandatory', c.encryption_mandatory],
    ['encryption_min_password_length', c.encryption_min_password_length],
    ['encryption_key_version_new_files', 3],
    // A generated password is FileSender's password version 2: 32 random octets shown in base64.
    ['encryption_random_password_version_new_files', 2],
    ['encryption_generated_password_encoding', 'base64'],
    ['encryption_password_hash_iterations_new_files', c.encryption_password_hash_iterations],
    ['encryption_password_must_have_upper_and_lower_case', c.encryption_password_must_have_upper_and_lower_case],
    ['encryption_password_must_have_numbers', c.encryption_password_must_have_numbers],
    ['encryption_password_must_have_special_characters', c.encryption_password_must_have_special_characters],
    ['crypto_iv_len', 16],
    ['crypto_crypt_name', 'AES-GCM'],
    ['crypto_hash_name', 'SHA-256'],
  ];
}

/** A JavaScript literal: strings in single quotes (what FileSender's clients match), the rest as JSON. */
function jsValue(v: unknown): string {
  if (typeof v === 'string') {
    const inner = JSON.stringify(v).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'");
    // JSON leaves the line and paragraph separators raw; they end a line for anything reading the file by lines.
    return `'${inner.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')}'`;
  }
  return JSON.stringify(v ?? null);
}
