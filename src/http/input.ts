import { z } from 'zod';
import { Errors, type ErrorEntry, ServiceError } from '../domain/errors';
import type { FerryContext } from './state';

/**
 * A route's input, declared in its chain (docs/architecture.md, "How a request flows"): the schemas of its path
 * parameters, query and body. The schemas check shape and types; the domain's parse functions keep its rules
 * (quotas, recipients, dates). A body that is the data itself (a chunk, a multipart upload) is `'bytes'`:
 * streamed by the handler, never parsed.
 */
export interface Schemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType | 'bytes';
}

type Out<S> = S extends z.ZodType ? z.output<S> : never;

/** What a handler gets: each declared part, parsed. */
export type Parsed<S extends Schemas> = {
  [K in keyof S]-?: S[K] extends 'bytes' ? never : Out<S[K]>;
};

/** A route's declared input; the router parses it after the access check and hands the result to the handler. */
export class Input<S extends Schemas = Schemas> {
  constructor(readonly schemas: S) {}

  parse(ctx: FerryContext): Parsed<S> {
    const out: Record<string, unknown> = {};
    const { params, query, body } = this.schemas;
    if (params) out.params = parsePart(params, ctx.params, 'params');
    if (query) out.query = parsePart(query, ctx.query, 'query');
    // An empty body is an empty object (a PUT with no fields), as FileSender's clients send it.
    if (body && body !== 'bytes') out.body = parsePart(body, ctx.request.body ?? {}, 'body');
    return out as Parsed<S>;
  }
}

export function input<S extends Schemas>(schemas: S): Input<S> {
  return new Input(schemas);
}

/** A route's path parameters, for an access level's loader, which runs before the route's input is parsed. */
export function parseParams<T extends z.ZodType>(ctx: FerryContext, schema: T): z.output<T> {
  return parsePart(schema, ctx.params, 'params');
}

/** The same for its query (an access level's chunk key, a download's token). */
export function parseQuery<T extends z.ZodType>(ctx: FerryContext, schema: T): z.output<T> {
  return parsePart(schema, ctx.query, 'query');
}

/** The body fits the schema (an access level's test that needs the body before the handler runs). */
export function bodyFits(ctx: FerryContext, schema: z.ZodType): boolean {
  return schema.safeParse(ctx.request.body ?? {}).success;
}

// -- errors ---------------------------------------------------------------------------------------------------

/**
 * A schema names the catalogue error a failed field answers with by its id (`{ error: Errors.badEmail.id }`);
 * without one, a missing field is rest_missing_parameter and any other failure rest_bad_parameter, the spec's
 * codes, each with the field's name as its detail.
 */
const defaultError: z.core.$ZodErrorMap = (iss) =>
  iss.input === undefined ? Errors.restMissingParameter.id : Errors.restBadParameter.id;

/** A field whose wrong value answers `entry` (a missing one stays rest_missing_parameter). */
export const wrongIs =
  (entry: ErrorEntry): z.core.$ZodErrorMap =>
  (iss) =>
    iss.input === undefined ? undefined : entry.id;

/** A field whose every failure, absence included, answers `entry`. */
export const failsAs = (entry: ErrorEntry) => ({ error: entry.id });

const byId = new Map<string, ErrorEntry>(Object.values(Errors).map((e) => [e.id, e]));

function parsePart<T extends z.ZodType>(schema: T, value: unknown, part: 'params' | 'query' | 'body'): z.output<T> {
  const r = schema.safeParse(value, { error: defaultError });
  if (r.success) return r.data;
  throw asServiceError(r.error.issues, part);
}

/** `files[0].name`: the field as the spec's details name it. */
function fieldName(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (Number.isInteger(p) ? `[${String(p)}]` : `${i ? '.' : ''}${String(p)}`)).join('');
}

function asServiceError(issues: readonly z.core.$ZodIssue[], part: string): ServiceError {
  const first = issues[0];
  // Not an object at all: the body as a whole is refused, as the spec's clients know it.
  if (first.path.length === 0 && first.code !== 'unrecognized_keys' && part === 'body') return Errors.badRequestBody();
  const entry = byId.get(first.message) ?? Errors.restBadParameter;
  const fields = issues
    .filter((i) => (byId.get(i.message) ?? Errors.restBadParameter) === entry)
    .flatMap((i) =>
      i.code === 'unrecognized_keys' ? i.keys.map((k) => fieldName([...i.path, k])) : [fieldName(i.path)],
    )
    .filter((f) => f !== '');
  return entry(...new Set(fields));
}

// -- shared schemas -------------------------------------------------------------------------------------------

/** A path id: a positive whole number. */
export const pathId = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number)
  .refine((n) => n >= 1);

/** `/x/:id` with a numeric id. */
export const idParams = z.object({ id: pathId });

/** `/user/:id`: a user id, as the identity provider gave it. */
export const userIdParams = z.object({ id: z.string() });

/** A list's page (`?limit=N&offset=M` or `?limit=N&after=K`); its bounds are the domain's (parsePage). */
export const pageQuery = z.object({
  limit: z.string().optional(),
  offset: z.string().optional(),
  after: z.string().optional(),
});

/** A download link's token: its checks are the download service's, which answers an unknown one 404. */
export const tokenQuery = z.object({ token: z.string().optional().catch(undefined) });

/**
 * The chunk-upload key (`?key=`), which an owner-level route may accept (./access.ts); anything but one string is
 * no key.
 */
export const keyQuery = z.object({ key: z.string().optional().catch(undefined) });

/** A boolean field of a body. */
export const flag = z.boolean().optional();

/** Any JSON object body, its fields read by the domain's parse function. */
export const anyObject = z.record(z.string(), z.unknown());
