import fs from 'node:fs';

/** A PEM file of the entry (its key, its certificates), read at start-up: a problem names the key and the file. */
export function readPem(file: string, key: string, label: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const hint = key === 'metadata_cert_file' ? '' : "; `ferry saml keygen` makes the service provider's key pair";
    throw new Error(
      `auth.sp (saml) ${key}: ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})${hint}`,
    );
  }
  if (!text.includes(`-----BEGIN `) || !text.includes(label.split(' ').pop()!))
    throw new Error(`auth.sp (saml) ${key}: ${file} holds no PEM ${label}`);
  return text;
}

/** The entry's PEM files that cannot be read or hold no PEM, for `ferry config check` (the start stops on them). */
export function pemProblems(files: Array<[file: string | null, key: string, label: string]>): string[] {
  const problems: string[] = [];
  for (const [file, key, label] of files) {
    if (!file) continue;
    try {
      readPem(file, key, label);
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  return problems;
}
