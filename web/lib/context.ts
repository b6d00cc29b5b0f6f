import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api';
import type { Translate } from './i18n';
import type { InfoJson, UserJson } from '../../src/http/presenters/wire';

/** What every view needs: the REST client, translations, instance facts and (when signed in) the user. */
export interface AppContext {
  api: Api;
  t: Translate;
  lang: string;
  info: InfoJson;
  user: UserJson | null;
  /** Path prefix of base_url, "" at the root. */
  base: string;
  /** The signed-in user's addresses (the `from` choices), given by the page shell. */
  emails: string[];
  /** No mail transport: mail is kept in the built-in inbox, never delivered, so nothing is called "sent". */
  mailKept: boolean;
  /** Set on the guest upload page. */
  guest: GuestContext | null;
}

export interface GuestContext {
  vid: string;
  email: string;
  options: string[];
  /** The inviter's address when the guest can only send to them. */
  to: string | null;
  /** The inviter's address; null when unknown. */
  from: string | null;
  /** The invitation's subject and message. */
  subject: string | null;
  message: string | null;
  /** When the invitation ends (UNIX time); null when it does not expire. */
  expires: number | null;
}

export const Ctx = createContext<AppContext>(null as unknown as AppContext);

export function useApp(): AppContext {
  return useContext(Ctx);
}
