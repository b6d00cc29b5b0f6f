/**
 * SAML attributes as FileSender reads them (docs/single-sign-on.md, SAML): an attribute is found by its friendly
 * name (SimpleSAMLphp's "basic" names) or by its urn:oid: name (what federations send), whichever the
 * identity provider used.
 */
const OIDS: Record<string, string> = {
  eduPersonPrincipalName: 'urn:oid:1.3.6.1.4.1.5923.1.1.1.6',
  eduPersonTargetedID: 'urn:oid:1.3.6.1.4.1.5923.1.1.1.10',
  eduPersonEntitlement: 'urn:oid:1.3.6.1.4.1.5923.1.1.1.7',
  'subject-id': 'urn:oasis:names:tc:SAML:attribute:subject-id',
  'pairwise-id': 'urn:oasis:names:tc:SAML:attribute:pairwise-id',
  isMemberOf: 'urn:oid:1.3.6.1.4.1.5923.1.5.1.1',
  uid: 'urn:oid:0.9.2342.19200300.100.1.1',
  mail: 'urn:oid:0.9.2342.19200300.100.1.3',
  displayName: 'urn:oid:2.16.840.1.113730.3.1.241',
  cn: 'urn:oid:2.5.4.3',
};

/** The values of one attribute, as strings (a NameID-valued one, such as eduPersonTargetedID, by its text). */
export function attributeValues(attributes: Record<string, unknown>, name: string): string[] {
  const names = [name, OIDS[name], Object.keys(OIDS).find((k) => OIDS[k] === name)].filter((n): n is string => !!n);
  for (const n of names) {
    if (!(n in attributes)) continue;
    const raw = attributes[n];
    return (Array.isArray(raw) ? raw : [raw])
      .map(text)
      .filter((v): v is string => typeof v === 'string' && v.length > 0);
  }
  return [];
}

function text(v: unknown): string | null {
  if (typeof v === 'string') return v.trim();
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o._ === 'string') return o._.trim();
  // <AttributeValue><NameID …>value</NameID></AttributeValue>: eduPersonTargetedID's shape.
  const inner = Object.entries(o).find(([k]) => /(^|:)NameID$/.test(k))?.[1];
  return Array.isArray(inner) ? text(inner[0]) : null;
}
