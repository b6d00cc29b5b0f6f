import { z } from 'zod';
import { parseQuery } from '../input';
import type { FerryContext } from '../state';

/** A page's argument given once; anything else is none given. */
const one = z.string().optional().catch(undefined);

/** What every page may be asked (`?s=` the page, `?lang=`, and the mail sink's message `id` and `part`). */
const pageArgs = z.object({ s: one, lang: one, id: one, part: one });

export function pageArgsOf(ctx: FerryContext): z.output<typeof pageArgs> {
  return parseQuery(ctx, pageArgs);
}
