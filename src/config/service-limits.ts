import type { AutomaticReminderMarks } from '../domain/automatic-reminders';
import type { Config } from './defaults';

/**
 * What the domain's services read of the config, on every use (PUT /config may change it): one mapping, used by
 * the transfers capability (src/compose/transfers.ts) that builds both the server's services and the unit tests'
 * on fakes (test/fakes/domain.ts), so the services under test are configured as the server configures them.
 */
export function transferLimitsOf(c: Config) {
  return {
    maxDays: c.max_transfer_days_valid,
    maxSize: c.max_transfer_size,
    maxFiles: c.max_transfer_files,
    maxRecipients: c.max_transfer_recipients,
    extensions: c.allow_transfer_expiry_date_extension,
  };
}

export function guestLimitsOf(c: Config) {
  return { defaultDays: c.default_guest_days_valid, maxDays: c.max_guest_days_valid };
}

/** Quotas: 0 = none. */
export function quotaLimitsOf(c: Config) {
  return { userQuota: c.user_quota, hostQuota: c.host_quota };
}

export function reminderMarksOf(c: Config): AutomaticReminderMarks {
  return { transfer: c.transfer_automatic_reminder, guest: c.guest_automatic_reminder };
}
