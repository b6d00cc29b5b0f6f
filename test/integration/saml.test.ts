import crypto from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { selfSignedCertificate, serialNumber } from '../../src/auth/providers/saml/self-signed';
import { attributeValues } from '../../src/auth/providers/saml/attributes';
import fs from 'node:fs';
import path from 'node:path';
import { IdpMetadata, parseIdpMetadata } from '../../src/auth/providers/saml/metadata';
import { tempDir } from '../helpers/temp-dir';

// The SAML provider's own pieces: the key pair `ferry saml keygen` writes, FileSender's attribute names (friendly
// or urn:oid:), and reading a federation's metadata (several entities, only identity providers kept).

test('keygen: an X.509 v3 certificate that parses, is self-signed, and matches its key', () => {
  const { keyPem, certPem } = selfSignedCertificate('files.example.org', 10, 2048);
  const c = new crypto.X509Certificate(certPem);
  assert.is(c.subject, 'CN=files.example.org');
  assert.is(c.issuer, 'CN=files.example.org');
  assert.ok(c.verify(c.publicKey));
  assert.ok(c.checkPrivateKey(crypto.createPrivateKey(keyPem)));
  const years = (Date.parse(c.validTo) - Date.parse(c.validFrom)) / (365.25 * 86400_000);
  assert.ok(years > 9.9 && years < 10.1, String(years));
  // Past 2049 the dates are GeneralizedTime, and still parse.
  assert.ok(
    new Date(new crypto.X509Certificate(selfSignedCertificate('x', 40, 2048).certPem).validTo).getUTCFullYear() >= 2066,
  );
});

test('keygen: whatever the random bytes, the serial is a positive INTEGER in its shortest form (no padding byte)', () => {
  for (let first = 0; first < 256; first++) {
    for (const second of [0x00, 0x7f, 0x80, 0xff]) {
      const random = crypto.randomBytes(16);
      random[0] = first;
      random[1] = second;
      const serial = serialNumber(random);
      assert.is(serial.length, 16);
      // DER: a leading 0x00 is only allowed before a byte with its top bit set, and a top bit set means negative.
      assert.ok(serial[0] !== 0 && serial[0] < 0x80, `first byte ${serial[0]} from ${first}`);
      assert.ok(serial.subarray(1).equals(random.subarray(1)), 'the rest stays random');
    }
  }
});

test('attributes by friendly name or urn:oid: name; eduPersonTargetedID as a NameID value', () => {
  const attrs = {
    'urn:oid:1.3.6.1.4.1.5923.1.1.1.6': 'alice@example.org',
    mail: ['alice@example.org', ' a.smith@lab.example.org '],
    'urn:oid:1.3.6.1.4.1.5923.1.1.1.10': {
      NameID: [{ _: 'opaque-id-123', $: { Format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent' } }],
    },
  };
  assert.equal(attributeValues(attrs, 'eduPersonPrincipalName'), ['alice@example.org']);
  assert.equal(attributeValues(attrs, 'urn:oid:0.9.2342.19200300.100.1.3'), [
    'alice@example.org',
    'a.smith@lab.example.org',
  ]);
  assert.equal(attributeValues(attrs, 'eduPersonTargetedID'), ['opaque-id-123']);
  assert.equal(attributeValues(attrs, 'displayName'), []);
});

const cert = selfSignedCertificate('idp', 1, 2048).certPem.replace(/-----[^-]+-----|\s/g, '');
const idp = (
  id: string,
  name: string,
) => `<md:EntityDescriptor entityID="${id}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
<md:Extensions><mdui:UIInfo><mdui:DisplayName xml:lang="de">${name} (de)</mdui:DisplayName><mdui:DisplayName xml:lang="en">${name}</mdui:DisplayName></mdui:UIInfo></md:Extensions>
<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${cert}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${id}/slo"/>
<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${id}/sso-post"/>
<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${id}/sso"/>
</md:IDPSSODescriptor></md:EntityDescriptor>`;
const aggregate = (validUntil: string) => `<?xml version="1.0"?>
<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" xmlns:mdui="urn:oasis:names:tc:SAML:metadata:ui" validUntil="${validUntil}">
${idp('https://idp.one.example', 'University One')}
${idp('https://idp.two.example', 'University Two')}
<md:EntityDescriptor entityID="https://sp.example"><md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/></md:EntityDescriptor>
</md:EntitiesDescriptor>`;

test("a federation's aggregate: its identity providers (English display name, redirect endpoints, certificate), not its SPs", async () => {
  const list = await parseIdpMetadata(aggregate('2099-01-01T00:00:00Z'), null, new Date());
  assert.equal(
    list.map((e) => [e.entityId, e.label, e.ssoUrl, e.sloUrl]),
    [
      ['https://idp.one.example', 'University One', 'https://idp.one.example/sso', 'https://idp.one.example/slo'],
      ['https://idp.two.example', 'University Two', 'https://idp.two.example/sso', 'https://idp.two.example/slo'],
    ],
  );
  assert.match(list[0].certs[0], /^-----BEGIN CERTIFICATE-----\n/);
});

test('metadata past its validUntil is refused; unsigned metadata is refused when a signing certificate is required', async () => {
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => 'accepted',
      (e: Error) => e.message,
    );
  assert.match(await failure(parseIdpMetadata(aggregate('2001-01-01T00:00:00Z'), null, new Date())), /expired/);
  const signer = selfSignedCertificate('federation', 1, 2048).certPem;
  assert.match(
    await failure(parseIdpMetadata(aggregate('2099-01-01T00:00:00Z'), signer, new Date())),
    /signature does not verify/,
  );
});

test('metadata is read again once refresh_s has passed: sign-ins go on with the old list meanwhile; a failed read keeps it and logs once', async () => {
  const file = path.join(tempDir(), 'federation.xml');
  const only = (id: string, name: string) =>
    `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" xmlns:mdui="urn:oasis:names:tc:SAML:metadata:ui">${idp(id, name)}</md:EntitiesDescriptor>`;
  fs.writeFileSync(file, only('https://idp.one.example', 'One'));
  const lines: string[] = [];
  // refresh_s 0: every use finds the list stale and starts a read in the background.
  const md = new IdpMetadata([file], null, [], 0, 5, (l) => lines.push(l));
  const ids = async () => [...(await md.get()).keys()];
  assert.equal(await ids(), ['https://idp.one.example']);
  fs.writeFileSync(file, only('https://idp.two.example', 'Two'));
  let seen: string[] = [];
  for (let i = 0; i < 50 && seen[0] !== 'https://idp.two.example'; i++) {
    seen = await ids();
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(seen, ['https://idp.two.example']);
  fs.writeFileSync(file, '<not-metadata');
  for (let i = 0; i < 20 && lines.length === 0; i++) {
    assert.equal(await ids(), ['https://idp.two.example']);
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(
    lines.length >= 1 && lines.every((l) => l.startsWith('SAML metadata not refreshed (the previous one stays)')),
    lines.join('\n'),
  );
});

test.run();
