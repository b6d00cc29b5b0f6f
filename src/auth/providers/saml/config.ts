import type { z } from 'zod';
import { zArrayOf, zInt, zStr } from '../../../config/zod-checks';
import { entrySchema } from '../entry';

const ATTRIBUTE = /^[\w.:-]{1,128}$/;

export const samlSchema = entrySchema('saml', 'Institution (SAML)', {
  /** The service provider's entity id; null: its metadata URL, base_url + /login/<id>/metadata. */
  entity_id: zStr(/^\S{1,1024}$/, 'an entity id (a URI)')
    .nullable()
    .default(null),
  /** The service provider's private key and certificate (PEM files, made by `ferry saml keygen`): signing and decryption. */
  key_file: zStr(/\S/, 'a file path'),
  cert_file: zStr(/\S/, 'a file path'),
  /** Where the identity providers' metadata comes from: files, or http(s) URLs (a federation's aggregate). */
  idp_metadata: zArrayOf(zStr(/\S/, 'a metadata file or http(s) URL')),
  /** A PEM certificate the metadata must be signed with (a federation's metadata signing key); null: not checked. */
  metadata_cert_file: zStr(/\S/, 'a file path').nullable().default(null),
  /** Seconds between two reads of metadata from a URL (a file is read again when it changes). */
  metadata_refresh_s: zInt(60, 7 * 86400).default(6 * 3600),
  /** Only these identity providers of the metadata are offered; empty: all of them. */
  idp_entity_ids: zArrayOf(zStr(/^\S{1,1024}$/, 'an entity id')).default([]),
  /** The first of these attributes the assertion has names the ferry user (friendly names or urn:oid: names). */
  uid_attributes: zArrayOf(zStr(ATTRIBUTE, 'an attribute name')).default([
    'eduPersonPrincipalName',
    'eduPersonTargetedID',
    'subject-id',
    'uid',
  ]),
  email_attribute: zStr(ATTRIBUTE, 'an attribute name').default('mail'),
  name_attributes: zArrayOf(zStr(ATTRIBUTE, 'an attribute name')).default(['displayName', 'cn']),
  /** A person with one of admin_values in one of these attributes is an admin. */
  admin_attributes: zArrayOf(zStr(ATTRIBUTE, 'an attribute name')).default(['eduPersonEntitlement', 'isMemberOf']),
  admin_values: zArrayOf(zStr(/\S/, 'an entitlement or group value')).default([]),
  /** Seconds of clock difference tolerated for NotBefore / NotOnOrAfter. */
  clock_skew_s: zInt(0, 600).default(60),
  /** Seconds to wait for a metadata URL. */
  timeout_s: zInt(1, 120).default(10),
});
export type SpSaml = z.output<typeof samlSchema>;

export function samlProblems(p: SpSaml): string[] {
  return p.idp_metadata.length === 0 ? [`auth.sp (${p.id}): idp_metadata needs at least one metadata file or URL`] : [];
}
