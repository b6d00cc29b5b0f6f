import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { KindCommandIO } from '../kind';
import { selfSignedCertificate } from './self-signed';

/**
 * `ferry saml keygen`: the SAML service provider's key pair (docs/single-sign-on.md, SAML). The key signs
 * ferry's requests and decrypts encrypted assertions; the certificate goes into ferry's metadata. It needs no
 * config and no database: run it once, then name the two files in auth.sp's key_file and cert_file.
 */
export function samlCommands(program: Command, io: KindCommandIO): void {
  const saml = program.command('saml').description('SAML service provider tools');
  saml
    .command('keygen')
    .description("make the SAML service provider's private key and self-signed certificate")
    .option('--dir <dir>', 'where to write saml-sp-key.pem and saml-sp-cert.pem', '.')
    .option('--name <cn>', "the certificate's common name (the service's host name)", 'ferry')
    .option('--years <n>', 'how long the certificate is valid', '10')
    .option('--force', 'replace existing files')
    .action((opts: { dir: string; name: string; years: string; force?: boolean }) => {
      const years = Number(opts.years);
      if (!Number.isInteger(years) || years < 1 || years > 50)
        throw io.usage('--years: a whole number of years from 1 to 50');
      if (!/^[^\s/\\]{1,64}$/.test(opts.name)) throw io.usage('--name: a host name, at most 64 characters');
      const keyFile = path.resolve(opts.dir, 'saml-sp-key.pem');
      const certFile = path.resolve(opts.dir, 'saml-sp-cert.pem');
      for (const f of [keyFile, certFile])
        if (!opts.force && fs.existsSync(f))
          throw io.usage(`${f} exists (--force replaces it; the identity providers then need ferry's new metadata)`);
      fs.mkdirSync(opts.dir, { recursive: true });
      const { keyPem, certPem } = selfSignedCertificate(opts.name, years);
      fs.writeFileSync(keyFile, keyPem, { mode: 0o600 });
      fs.chmodSync(keyFile, 0o600);
      fs.writeFileSync(certFile, certPem, { mode: 0o644 });
      io.out(`key_file: ${keyFile}\ncert_file: ${certFile}`);
    });
}
