/**
 * A File's name may carry the relative path it had in an uploaded folder ("photos/2026/a.jpg"), as FileSender 3
 * sends it. The name is kept as given and never becomes a path on the server (data is stored under the File's
 * random uid), but a recipient's archive or client rebuilds the tree from it, so it must stay inside whatever
 * folder it is unpacked into: no absolute path, no drive letter, no "..", ".", empty or blank segment. Backslashes
 * count as separators here because Windows unpackers treat them so.
 */
export function isSafeRelativeName(name: string): boolean {
  const segments = name.split(/[/\\]/);
  if (/^[A-Za-z]:/.test(segments[0])) return false;
  return segments.every((seg) => seg.trim() !== '' && seg !== '.' && seg !== '..');
}
