/**
 * User strings (file names, subjects, messages) are stored as given, but where they are shown or become a
 * header or a path, some characters must go: C0 and C1 controls and DEL (line breaks end headers, terminals
 * obey escapes), the Unicode line and paragraph separators, and the bidi embeddings, overrides and isolates,
 * which make "photo\u202Egnp.exe" display as "photoexe.png" while the file saved is an .exe. One list, so
 * the name on the page, in the mail, in Content-Disposition and in an archive is the same name.
 */
const BEYOND_C0 = '\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const HIDDEN = new RegExp(`[\\u0000-\\u001f${BEYOND_C0}]`, 'g');
/** The same without tab and line feed. */
const HIDDEN_BUT_LINES = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f${BEYOND_C0}]`, 'g');
const HIDDEN_RUNS = new RegExp(`[\\u0000-\\u001f${BEYOND_C0}]+`, 'g');

/** One line of text as it may be shown: a file name or a subject. */
export function visibleName(text: string): string {
  return text.replace(HIDDEN, '');
}

/** The same characters, each run of them turned into one space (a mail header, where words must stay apart). */
export function spacedLine(text: string): string {
  return text.replace(HIDDEN_RUNS, ' ');
}

/** Text that keeps its line breaks and tabs (a message), without anything that could disguise it. */
export function visibleText(text: string): string {
  return text.replace(HIDDEN_BUT_LINES, '');
}

/**
 * At most `max` UTF-8 bytes (a path component's limit on most file systems), cut on a character boundary,
 * keeping a short extension so the file still opens with the right program.
 */
export function fitBytes(name: string, max = 255): string {
  if (Buffer.byteLength(name) <= max) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  const room = max - Buffer.byteLength(ext);
  let out = '';
  let used = 0;
  for (const ch of name.slice(0, name.length - ext.length)) {
    const n = Buffer.byteLength(ch);
    if (used + n > room) break;
    out += ch;
    used += n;
  }
  return out + ext;
}
