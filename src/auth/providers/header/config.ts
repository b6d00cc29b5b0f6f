import type { z } from 'zod';
import { zArrayOf, zStr } from '../../../config/zod-checks';
import { entrySchema } from '../entry';

export const headerSchema = entrySchema('header', 'Organisation', {
  uid_header: zStr(/^[A-Za-z0-9-]+$/, 'a header name').default('X-Remote-User'),
  email_header: zStr(/^[A-Za-z0-9-]+$/, 'a header name').default('X-Remote-Email'),
  /** Only these peers' headers are believed. */
  trusted_proxies: zArrayOf(zStr(/^[0-9a-fA-F.:]+$/, 'an IP address')).default(['127.0.0.1', '::1']),
});
export type SpHeader = z.output<typeof headerSchema>;
