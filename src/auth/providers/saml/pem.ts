import fs from 'node:fs';
import type { SpSaml } from './config';

/** A PEM file of the entry (its key, its certificates), read at start-up: a problem names the entry, key and file. */
export function readPem(id: string, file: string, key: string, label: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const hint = key === 'metadata_cert_file' ? '' : "; `ferry saml keygen` makes the service provider's key pair";
    throw new Error(
      `auth.sp (${id}) ${key}: ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})${hint}`,
    );
  }
  if (!text.includes(`-----BEGIN `) || !text.includes(label.split(' ').pop()!))
    throw new Error(`auth.sp (${id}) ${key}: ${file} holds no PEM ${label}`);
  return text;
}

/** The entry's PEM files that cannot be read or hold no PEM, for `ferry config check` (the start stops on them). */
export function pemProblems(c: SpSaml): string[] {
  const files: Array<[file: string | null, key: string, label: string]> = [
    [c.key_file, 'key_file', 'PRIVATE KEY'],
    [c.cert_file, 'cert_file', 'CERTIFICATE'],
    [c.metadata_cert_file, 'metadata_cert_file', 'CERTIFICATE'],
  ];
  const problems: string[] = [];
  for (const [file, key, label] of files) {
    if (!file) continue;
    try {
      readPem(c.id, file, key, label);
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  return problems;
}
