import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BinaryServer } from '../helpers/binary';
import { freePort, tempDir } from '../helpers/server';
import { startIdp, type TestIdp } from '../helpers/system/simplesamlphp';
import { selfSignedCertificate } from '../../src/auth/providers/saml/self-signed';
import { makeFile, openBrowser, startFerry } from './harness';

// Signing in through a real SAML identity provider (Debian's SimpleSAMLphp, its own login page and its
// auto-posted answer) in a real browser against dist/ferry, then sending a file.
let ferry: BinaryServer;
let idp: TestIdp;
let dir: string;

test.before(async () => {
  dir = tempDir('ferry-saml-files-');
  const { keyPem, certPem } = selfSignedCertificate('ferry.browser.test', 1, 2048);
  const keyFile = path.join(dir, 'sp-key.pem');
  const certFile = path.join(dir, 'sp-cert.pem');
  fs.writeFileSync(keyFile, keyPem, { mode: 0o600 });
  fs.writeFileSync(certFile, certPem);
  const port = await freePort();
  idp = await startIdp(
    {
      sam: {
        password: 'sam pw 1',
        attributes: {
          eduPersonPrincipalName: ['sam@uni.example.org'],
          mail: ['sam@uni.example.org'],
          displayName: ['Sam Researcher'],
        },
      },
    },
    { port },
  );
  ferry = await startFerry({
    auth: {
      sp: [
        {
          type: 'saml',
          id: 'uni',
          label: 'Example University',
          key_file: keyFile,
          cert_file: certFile,
          idp_metadata: [idp.metadataUrl],
        },
      ],
    },
  });
  idp.setServiceProviders([
    {
      entityId: `${ferry.url}/login/uni/metadata`,
      acs: `${ferry.url}/login/uni/callback`,
      slo: `${ferry.url}/login/uni/logout`,
      certPem,
      encrypt: true,
    },
  ]);
});
test.after(async () => {
  await ferry?.stop();
  await idp?.close();
});

test("SAML: the button, the IdP's login page, its posted answer, back signed in; a file is sent", async () => {
  const b = await openBrowser();
  try {
    await b.page.goto(`${ferry.url}/`);
    await b.page.click('a.login-button[data-provider="uni"]');
    await b.page.locator('input[name="username"]').waitFor();
    await b.page.fill('input[name="username"]', 'sam');
    await b.page.fill('input[name="password"]', 'sam pw 1');
    await b.page.locator('input[name="password"]').press('Enter');
    await b.page.locator('#upload-title').waitFor({ timeout: 30_000 });
    assert.ok(b.page.url().startsWith(ferry.url), b.page.url());
    const file = makeFile(dir, 'saml-report.pdf', 200_000);
    await b.page.setInputFiles('#pick-files', [file.path]);
    await b.page.fill('#upload-recipients', 'friend@example.org');
    await b.page.keyboard.press('Enter');
    await b.page.fill('#upload-subject', 'saml-report.pdf');
    await b.page.locator('.chips li', { hasText: 'friend@example.org' }).waitFor();
    await b.page.click('button.primary');
    await b.page.locator('#summary-title').waitFor({ timeout: 60_000 });
    assert.is(await b.page.locator('#summary-title').innerText(), 'Your files are uploaded');
  } finally {
    await b.close();
  }
});

test.run();
