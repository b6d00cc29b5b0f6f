import { Errors } from './errors';

/** Transfer options of docs/architecture.md, Options. */
export const TRANSFER_OPTIONS = [
  'email_me_copies',
  'email_me_on_expire',
  'email_upload_complete',
  'email_download_complete',
  'email_report_on_closing',
  'enable_recipient_email_download_complete',
  'add_me_to_recipients',
  'get_a_link',
] as const;

/** Guest options of docs/architecture.md, Options. */
export const GUEST_OPTIONS = [
  'email_upload_started',
  'email_upload_page_access',
  'valid_only_one_time',
  'does_not_expire',
  'can_only_send_to_me',
  'email_guest_created',
  'email_guest_created_receipt',
  'email_guest_expired',
] as const;

/**
 * Options come as the spec's array of names (those listed are on, plus the on-by-default ones), or as
 * FileSender's object form {"name": value}, which can also turn a default off. In the object form a value of
 * false or 0 (or null) means "not set": never an error, even for a name this list does not know, since
 * FileSender's client sends the transfer option {"get_a_link": 0} on POST /guest too. A name set to true or 1
 * must be known. Returns the effective set in the canonical order of `known`.
 */
export function parseOptions(
  v: unknown,
  field: string,
  known: readonly string[],
  onByDefault: readonly string[],
): string[] {
  const on = new Set(onByDefault);
  if (v === undefined || v === null) return known.filter((o) => on.has(o));
  if (Array.isArray(v)) {
    v.forEach((name, i) => {
      if (typeof name !== 'string') throw Errors.restBadParameter(`${field}[${i}]`);
      if (!known.includes(name)) throw Errors.badOptionName(`${field}[${i}]`);
      on.add(name);
    });
  } else if (typeof v === 'object') {
    for (const [name, value] of Object.entries(v as Record<string, unknown>)) {
      const set = optionValue(value, `${field}.${name}`);
      if (!set) {
        on.delete(name);
        continue;
      }
      if (!known.includes(name)) throw Errors.badOptionName(`${field}.${name}`);
      on.add(name);
    }
  } else {
    throw Errors.restBadParameter(field);
  }
  return known.filter((o) => on.has(o));
}

/** A value of the object form: true/1 sets the option, false/0/null leaves it unset; anything else is refused. */
function optionValue(value: unknown, field: string): boolean {
  if (value === true || value === 1) return true;
  if (value === false || value === 0 || value === null) return false;
  throw Errors.restBadParameter(field);
}
