import { fitBytes, visibleName } from '../util/names';

/**
 * Entry names from user-given file names: never absolute, no "." or ".." segments, no backslashes, control or
 * bidi characters, no component longer than file systems take (255 bytes), and unique (a repeated name gets
 * " (2)", " (3)" before its extension).
 */
export function safeEntryNames(names: string[]): string[] {
  const used = new Set<string>();
  return names.map((original) => {
    const cleaned = visibleName(original)
      .replace(/\\/g, '/')
      .replace(/^[A-Za-z]:/, '')
      .split('/')
      .filter((seg) => seg !== '' && seg !== '.' && seg !== '..')
      .map((seg) => fitBytes(seg))
      .join('/');
    const base = cleaned || 'file';
    let candidate = base;
    for (let i = 2; used.has(candidate.toLowerCase()); i++) {
      const dot = base.lastIndexOf('.');
      const slash = base.lastIndexOf('/');
      candidate = dot > slash + 1 ? `${base.slice(0, dot)} (${i})${base.slice(dot)}` : `${base} (${i})`;
    }
    used.add(candidate.toLowerCase());
    return candidate;
  });
}
