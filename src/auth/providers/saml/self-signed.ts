import crypto from 'node:crypto';

/**
 * A service provider's key pair and self-signed certificate, for SAML metadata (docs/single-sign-on.md, SAML).
 * SAML uses the certificate only as a carrier of the public key (federations do not check who signed it), so a
 * self-signed one is what SAML software makes by convention. Node has no certificate builder: the few fields of
 * an X.509 v3 certificate are written here in DER and signed with RSA-SHA256.
 */
export function selfSignedCertificate(
  commonName: string,
  years = 10,
  bits = 3072,
): { keyPem: string; certPem: string } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: bits });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const now = new Date();
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(now.getUTCFullYear() + years);
  const serial = serialNumber(crypto.randomBytes(16));
  const sha256WithRsa = seq(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00]));
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    sha256WithRsa,
    name,
    seq(time(notBefore), time(notAfter)),
    name,
    spki,
  );
  const signature = crypto.sign('sha256', tbs, privateKey);
  const der = seq(tbs, sha256WithRsa, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const certPem = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
  return { keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), certPem };
}

/**
 * A certificate's serial from 16 random bytes: a positive DER INTEGER in its shortest form. Clearing only the top
 * bit left a first byte of 0 once in 128, and with a second byte under 0x80 that is a padded INTEGER, which
 * OpenSSL refuses to parse ("illegal padding"): one certificate in 256 was unreadable. The first byte is now
 * 0x40-0x7f (126 random bits left).
 */
export function serialNumber(random: Buffer): Buffer {
  const serial = Buffer.from(random);
  serial[0] = (serial[0] & 0x3f) | 0x40;
  return serial;
}

function tlv(tag: number, body: Buffer): Buffer {
  const n = body.length;
  const len =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : n < 0x10000
          ? Buffer.from([0x82, n >> 8, n & 0xff])
          : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
}
const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const integer = (b: Buffer) => tlv(0x02, b);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const v of rest) {
    const groups = [v & 0x7f];
    for (let x = v >>> 7; x > 0; x >>>= 7) groups.unshift((x & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280, 4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return d.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(iso.slice(2), 'ascii'))
    : tlv(0x18, Buffer.from(iso, 'ascii'));
}
