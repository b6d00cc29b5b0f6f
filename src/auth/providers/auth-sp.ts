import { z } from 'zod';
import { describe, zKinded } from '../../config/zod-checks';
import { identityKindOf, identityKinds, providerConfigs, type SpConfig, type SpInput } from './registry';

/**
 * The `auth.sp` block of the config, one entry or a list of them, each checked by its kind's schema
 * (src/auth/providers/<kind>/config.ts); what the config, `ferry config check` and the environment ask of it.
 */

const entry = zKinded(
  (type) => identityKindOf(type)?.schema,
  () => identityKinds().map((k) => k.type),
);

/** `auth.sp`: one provider or a non-empty list of them, with distinct ids. */
export const spSchema = z.unknown().superRefine((v, ctx) => {
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0) ctx.addIssue({ code: 'custom', message: 'at least one identity provider, got an empty list' });
  let checked = true;
  list.forEach((e, i) => {
    const r = entry.safeParse(e);
    if (r.success) return;
    checked = false;
    for (const issue of r.error.issues)
      ctx.addIssue({ ...issue, path: Array.isArray(v) ? [i, ...issue.path] : issue.path });
  });
  if (!checked || list.length === 0) return;
  const ids = providerConfigs(list as SpInput[]).map((p) => p.id);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (twice.length)
    ctx.addIssue({ code: 'custom', message: `each provider needs its own "id"; ${describe(twice[0])} is used twice` });
});

/** Rules between the entries, and each kind's between its keys, checked once merged with the defaults. */
export function providerCrossChecks(list: SpConfig[]): string[] {
  const problems: string[] = [];
  for (const p of list) problems.push(...(identityKindOf(p.type)?.problems?.(p) ?? []));
  const ids = new Map(list.map((p) => [p.id, p.type]));
  for (const kind of identityKinds()) {
    if (kind.single && list.filter((p) => p.type === kind.type).length > 1)
      problems.push(`auth.sp: at most one "${kind.type}" provider`);
    // Its type names its accounts' owner (src/domain/account-owners.ts): another kind by that id would own them.
    if (kind.localAccounts && list.some((p) => p.id === kind.type && p.type !== kind.type))
      problems.push(`auth.sp: the id "${kind.type}" is for the ${kind.type} provider`);
  }
  const local = (id: string) => identityKindOf(ids.get(id))?.localAccounts === true;
  const besides = identityKinds()
    .filter((k) => k.localAccounts)
    .map((k) => k.type)
    .join(', ');
  for (const p of list)
    for (const other of p.link_accounts_of)
      if (other === p.id || !ids.has(other) || local(other))
        problems.push(
          `auth.sp (${p.id}): link_accounts_of names "${other}", not another provider of auth.sp besides ${besides}`,
        );
  return problems;
}

/** What the start finds wrong outside the file (a key file that cannot be read), for `ferry config check`. */
export function providerStartupProblems(sp: SpInput | SpInput[]): string[] {
  return providerConfigs(sp).flatMap((p) => identityKindOf(p.type)?.startupProblems?.(p) ?? []);
}

/**
 * `auth.sp` as the file gives it (still unchecked), with the values the environment gives each entry's kind
 * (its secrets: FERRY_<KIND>_<ID>_… before FERRY_<KIND>_…), so they need not sit in the file.
 */
export function providersFromEnv(sp: unknown, env: NodeJS.ProcessEnv): unknown {
  if (!sp || typeof sp !== 'object') return sp;
  const withEnv = (given: unknown): unknown => {
    if (typeof given !== 'object' || given === null) return given;
    const e = given as Record<string, unknown>;
    const fromEnv = identityKindOf(e.type)?.fromEnv;
    if (!fromEnv) return e;
    const envId = (typeof e.id === 'string' ? e.id : String(e.type)).toUpperCase().replace(/-/g, '_');
    return { ...e, ...fromEnv(envId, env) };
  };
  return Array.isArray(sp) ? sp.map(withEnv) : withEnv(sp);
}

/** `auth.sp` with each kind's secrets shown as "(set)", never as their value (`ferry config check --json`). */
export function providersWithoutSecrets(sp: SpInput | SpInput[]): unknown {
  const hide = (e: SpInput) => {
    const secrets = identityKindOf(e.type)?.secrets ?? [];
    return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, secrets.includes(k) && v ? '(set)' : v]));
  };
  return Array.isArray(sp) ? sp.map(hide) : hide(sp);
}
