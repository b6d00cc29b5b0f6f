import fs from 'node:fs';
import { getVerifiedXml, parseDomFromString, xpath } from '@node-saml/node-saml/lib/xml';

/** One identity provider as its metadata describes it. */
export interface IdpEntry {
  entityId: string;
  /** The discovery page's name for it (mdui:DisplayName, else the organisation's, else the entity id). */
  label: string;
  /** SingleSignOnService, HTTP-Redirect binding. */
  ssoUrl: string;
  /** SingleLogoutService, HTTP-Redirect binding, or null when the provider has none. */
  sloUrl: string | null;
  /** Its signing certificates (PEM). */
  certs: string[];
}

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const el = (local: string) => `*[local-name()='${local}']`;

/**
 * The identity providers of a metadata document (one EntityDescriptor, or a federation's EntitiesDescriptor).
 * With `signingCert`, the document's root must carry a valid signature of that certificate, and only what the
 * signature covers is read; a document past its validUntil is refused either way.
 */
export async function parseIdpMetadata(xml: string, signingCert: string | null, now: Date): Promise<IdpEntry[]> {
  let doc = await parseDomFromString(xml);
  if (signingCert) {
    const verified = getVerifiedXml(xml, doc.documentElement, [signingCert]);
    if (!verified) throw new Error('its signature does not verify with metadata_cert_file');
    doc = await parseDomFromString(verified);
  }
  const root = doc.documentElement;
  const validUntil = root.getAttribute('validUntil');
  if (validUntil && Date.parse(validUntil) < now.getTime()) throw new Error(`it expired at ${validUntil} (validUntil)`);
  const entities =
    root.localName === 'EntityDescriptor' ? [root] : xpath.selectElements(root, `.//${el('EntityDescriptor')}`);
  const out: IdpEntry[] = [];
  for (const e of entities) {
    const idp = xpath.selectElements(e, `./${el('IDPSSODescriptor')}`)[0];
    if (!idp) continue;
    const entityId = e.getAttribute('entityID') ?? '';
    const location = (kind: string) =>
      xpath.selectElements(idp, `./${el(kind)}[@Binding='${REDIRECT}']`)[0]?.getAttribute('Location') ?? null;
    const ssoUrl = location('SingleSignOnService');
    const certs = xpath
      .selectElements(idp, `./${el('KeyDescriptor')}[not(@use) or @use='signing']//${el('X509Certificate')}`)
      .map((c) => (c.textContent ?? '').replace(/\s+/g, ''))
      .filter(Boolean)
      .map(
        (b64) =>
          `-----BEGIN CERTIFICATE-----\n${b64.replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`,
      );
    if (!entityId || !ssoUrl || !/^https?:\/\//.test(ssoUrl) || certs.length === 0) continue;
    const names = [
      ...xpath.selectElements(idp, `.//${el('UIInfo')}/${el('DisplayName')}`),
      ...xpath.selectElements(e, `./${el('Organization')}/${el('OrganizationDisplayName')}`),
    ];
    const english = names.find((n) => n.getAttribute('xml:lang') === 'en') ?? names[0];
    const slo = location('SingleLogoutService');
    out.push({
      entityId,
      label: english?.textContent?.trim() || entityId,
      ssoUrl,
      sloUrl: slo && /^https?:\/\//.test(slo) ? slo : null,
      certs,
    });
  }
  return out;
}

/**
 * The identity providers of every configured source, read on first use and again once `refreshS` has passed
 * (in the background: sign-ins go on with what was read before; a failed read keeps it and is logged). A source
 * that was never read makes sign-in wait for it, and fail as "unavailable" when it cannot be read.
 */
export class IdpMetadata {
  private current: Map<string, IdpEntry> | null = null;
  private readAt = 0;
  private reading: Promise<Map<string, IdpEntry>> | null = null;

  constructor(
    private readonly sources: string[],
    private readonly signingCert: string | null,
    private readonly only: string[],
    private readonly refreshS: number,
    private readonly timeoutS: number,
    private readonly logLine: (line: string) => void,
  ) {}

  async get(): Promise<Map<string, IdpEntry>> {
    const stale = Date.now() - this.readAt > this.refreshS * 1000;
    if (this.current && !stale) return this.current;
    if (!this.reading) {
      this.reading = this.read().finally(() => (this.reading = null));
      // A refresh that fails keeps what was read before, and says so once.
      if (this.current)
        this.reading.catch((e) =>
          this.logLine(`SAML metadata not refreshed (the previous one stays): ${(e as Error).message}`),
        );
    }
    return this.current ?? this.reading;
  }

  private async read(): Promise<Map<string, IdpEntry>> {
    const found = new Map<string, IdpEntry>();
    for (const source of this.sources) {
      let xml: string;
      try {
        xml = /^https?:\/\//.test(source)
          ? await fetchText(source, this.timeoutS)
          : await fs.promises.readFile(source, 'utf8');
      } catch (e) {
        throw new Error(`metadata ${source} could not be read: ${(e as Error).message}`);
      }
      let entries: IdpEntry[];
      try {
        entries = await parseIdpMetadata(xml, this.signingCert, new Date());
      } catch (e) {
        throw new Error(`metadata ${source} refused: ${(e as Error).message}`);
      }
      for (const e of entries) if (this.only.length === 0 || this.only.includes(e.entityId)) found.set(e.entityId, e);
    }
    if (found.size === 0) throw new Error(`no usable identity provider in ${this.sources.join(', ')}`);
    this.current = found;
    this.readAt = Date.now();
    return found;
  }
}

async function fetchText(url: string, timeoutS: number): Promise<string> {
  const res = await fetch(url, {
    signal: AbortSignal.timeout(timeoutS * 1000),
    headers: { Accept: 'application/samlmetadata+xml, application/xml, text/xml' },
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const text = await res.text();
  if (text.length > 256 * 1024 * 1024) throw new Error('larger than 256 MiB');
  return text;
}
