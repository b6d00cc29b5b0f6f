import { z } from 'zod';
import { Errors } from '../domain/errors';
import type { Transfer } from '../domain/model';
import type { Step } from './access';
import { securityTokenMatches } from './middleware/authenticate';
import { parseQuery } from './input';

/** Anything but one string (the argument given twice) is null: a token that cannot match. */
const roundtripQuery = z.object({ roundtriptoken: z.string().nullable().optional().catch(null) });

/**
 * FileSender's clients send back the Transfer's round-trip token (`?roundtriptoken=`, from the answer that
 * created the Transfer) with every chunk and completion. ferry's own clients do not send one, so none is
 * required; one that is sent must be the Transfer's (403 rest_roundtrip_token_invalid, FileSender's answer).
 * Runs after an owner-level check that left `{ transfer }` on ctx.state.resource.
 */
export const roundtripToken: Step = (ctx, next) => {
  const given = parseQuery(ctx, roundtripQuery).roundtriptoken;
  if (given === undefined || given === '') return next();
  const expected = (ctx.state.resource as { transfer: Transfer }).transfer.roundtripToken;
  if (given === null || !expected || !securityTokenMatches(given, expected)) throw Errors.restRoundtripTokenInvalid();
  return next();
};
