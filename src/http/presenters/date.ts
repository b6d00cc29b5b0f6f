/** The spec's Date object: raw UNIX seconds plus a dd/mm/yyyy rendering. */
export interface DateJson {
  raw: number;
  formatted: string;
}

export function presentDate(raw: number): DateJson;
export function presentDate(raw: number | null | undefined): DateJson | null;
export function presentDate(raw: number | null | undefined): DateJson | null {
  if (raw === null || raw === undefined) return null;
  const d = new Date(raw * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return { raw, formatted: `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}` };
}
