import type { UserRecord } from '../../domain/users';
import { presentDate } from './date';

export interface UserFacts {
  emails: string[];
  frequentRecipients: string[];
  /** `{base_url}/|<user_id>|<secret>` when remote-user mode is enabled, else null. */
  remoteConfig: string | null;
  isAdmin: boolean;
  /** Language shown when the user chose none. */
  defaultLang: string;
  /** The request's language, for the `formatted` dates. */
  lang: string;
}

/** The spec's user preferences object, plus `email` and `is_admin` (extensions the web pages use). */
export function presentUser(u: UserRecord, f: UserFacts) {
  return {
    id: u.id,
    additional_attributes: u.additionalAttributes,
    aup_ticked: u.aupTicked,
    transfer_preferences: u.transferPreferences,
    guest_preferences: u.guestPreferences,
    created: presentDate(u.created, f.lang),
    last_activity: presentDate(u.lastActivity, f.lang),
    lang: u.lang ?? f.defaultLang,
    frequent_recipients: f.frequentRecipients,
    remote_config: f.remoteConfig,
    email: f.emails,
    is_admin: f.isAdmin,
  };
}
