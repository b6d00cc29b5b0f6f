/** How many addresses GET /user/.../frequent_recipients returns at most. */
export const FREQUENT_RECIPIENTS_LIMIT = 50;

/**
 * The addresses a user sent to, most recent first (spec: GET /user/@me/frequent_recipients). Recorded from the
 * Transfers the user creates and the recipients the user adds; src/db/frequent-recipients-repo.ts stores them.
 */
export interface FrequentRecipientStore {
  /** The addresses move to the top of the user's list (compared case-insensitively, kept lower-cased). */
  remember(userId: string, emails: string[], now: number): void;
  /** Most recent first; `contains` filters case-insensitively. */
  list(userId: string, contains: string | null, limit: number): string[];
}
