import crypto from 'node:crypto';
import zlib from 'node:zlib';
import {
  SAML,
  SamlStatusError,
  ValidateInResponseTo,
  generateServiceProviderMetadata,
  type CacheProvider,
  type Profile,
} from '@node-saml/node-saml';
import { parseDomFromString, xpath } from '@node-saml/node-saml/lib/xml';
import { isEmail } from '../../../domain/transfer-input';
import {
  LoginFailed,
  type ChooseFirst,
  type IdentityProvider,
  type ProviderRequest,
  type ProviderSession,
  type RedirectStart,
  type SignedInPerson,
} from '../../identity-provider';
import { attributeValues } from './attributes';
import { IdpMetadata, type IdpEntry } from './metadata';
import { providerUrl, type ProviderDeps } from '../deps';
import type { SpSaml } from './config';
import { readPem } from './pem';

const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** How long a sign-in may take at the identity provider (as the flow cookie lives). */
const REQUEST_MAX_MS = 10 * 60 * 1000;

/**
 * SAML 2.0 (docs/single-sign-on.md, SAML), through @node-saml/node-saml: ferry is a service provider of one or
 * several identity providers (a federation's metadata). AuthnRequests go out signed by the HTTP-Redirect
 * binding; answers come back by HTTP-POST to /login/<id>/callback (the assertion consumer service).
 *
 * An answer is taken only when the response or its assertion is signed by the identity provider's metadata
 * certificate (an encrypted assertion is decrypted with ferry's key first), it answers this browser's own
 * request (InResponseTo, kept in the flow cookie), its audience is ferry's entity id, its recipient ferry's
 * assertion consumer service, its NotBefore / NotOnOrAfter hold within clock_skew_s, and its assertion id was
 * never used before on any node (the database's one-time values, kept until the assertion expires).
 */
export class SamlProvider implements IdentityProvider {
  readonly type = 'saml';
  readonly style = 'redirect' as const;
  readonly localAccounts = false;
  readonly crossSiteCallback = true;
  readonly id: string;
  readonly label: string;
  private readonly key: string;
  private readonly cert: string;
  private readonly idps: IdpMetadata;

  constructor(
    private readonly cfg: SpSaml,
    private readonly deps: ProviderDeps,
  ) {
    this.id = cfg.id;
    this.label = cfg.label;
    this.key = readPem(cfg.id, cfg.key_file, 'key_file', 'PRIVATE KEY');
    this.cert = readPem(cfg.id, cfg.cert_file, 'cert_file', 'CERTIFICATE');
    const metadataCert = cfg.metadata_cert_file
      ? readPem(cfg.id, cfg.metadata_cert_file, 'metadata_cert_file', 'CERTIFICATE')
      : null;
    this.idps = new IdpMetadata(
      cfg.idp_metadata,
      metadataCert,
      cfg.idp_entity_ids,
      cfg.metadata_refresh_s,
      cfg.timeout_s,
      deps.logLine,
    );
  }

  private get entityId(): string {
    return this.cfg.entity_id ?? providerUrl(this.deps, this.id, '/metadata');
  }

  private get acsUrl(): string {
    return providerUrl(this.deps, this.id, '/callback');
  }

  /** node-saml for one identity provider; `cache` holds the request this browser is waiting on. */
  private client(idp: IdpEntry, cache: CacheProvider, inResponseTo: ValidateInResponseTo): SAML {
    return new SAML({
      issuer: this.entityId,
      callbackUrl: this.acsUrl,
      logoutCallbackUrl: providerUrl(this.deps, this.id, '/logout'),
      entryPoint: idp.ssoUrl,
      logoutUrl: idp.sloUrl ?? idp.ssoUrl,
      idpCert: idp.certs,
      idpIssuer: idp.entityId,
      privateKey: this.key,
      decryptionPvk: this.key,
      signatureAlgorithm: 'sha256',
      audience: this.entityId,
      // Either the response or the assertion must be signed (node-saml requires the assertion's signature
      // whenever the response's is missing): what SimpleSAMLphp, Shibboleth and ADFS send by default.
      wantAssertionsSigned: false,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: this.cfg.clock_skew_s * 1000,
      validateInResponseTo: inResponseTo,
      requestIdExpirationPeriodMs: REQUEST_MAX_MS,
      cacheProvider: cache,
      // The identity provider picks the NameID format; ferry names users by their attributes.
      identifierFormat: null,
      disableRequestedAuthnContext: true,
    });
  }

  private async idp(entityId: string | null | undefined): Promise<IdpEntry> {
    let idps: Map<string, IdpEntry>;
    try {
      idps = await this.idps.get();
    } catch (e) {
      throw new LoginFailed('unavailable', (e as Error).message);
    }
    const idp = entityId ? idps.get(entityId) : idps.size === 1 ? [...idps.values()][0] : undefined;
    if (!idp)
      throw new LoginFailed(
        'failed',
        `no identity provider ${JSON.stringify(String(entityId ?? '').slice(0, 200))} in the metadata`,
      );
    return idp;
  }

  async metadata(): Promise<{ type: string; body: string }> {
    const body = generateServiceProviderMetadata({
      issuer: this.entityId,
      callbackUrl: this.acsUrl,
      logoutCallbackUrl: providerUrl(this.deps, this.id, '/logout'),
      decryptionCert: this.cert,
      decryptionPvk: this.key,
      publicCerts: this.cert,
      // With the key, the metadata says AuthnRequestsSigned="true" (every request ferry sends is signed).
      privateKey: this.key,
      signatureAlgorithm: 'sha256',
      wantAssertionsSigned: true,
      identifierFormat: null,
    });
    // node-saml names the POST binding for single logout; ferry's /login/<id>/logout takes HTTP-Redirect.
    return {
      type: 'application/samlmetadata+xml',
      body: body.replace(/(<SingleLogoutService Binding=")[^"]+"/, `$1${REDIRECT_BINDING}"`),
    };
  }

  async start(req: ProviderRequest): Promise<RedirectStart | ChooseFirst> {
    const chosen = req.url.searchParams.get('idp');
    if (!chosen) {
      let idps: Map<string, IdpEntry>;
      try {
        idps = await this.idps.get();
      } catch (e) {
        throw new LoginFailed('unavailable', (e as Error).message);
      }
      if (idps.size > 1)
        return {
          choose: [...idps.values()]
            .map((i) => ({ id: i.entityId, label: i.label }))
            .sort((a, b) => a.label.localeCompare(b.label)),
        };
    }
    const idp = await this.idp(chosen);
    const waiting = new FlowCache();
    const location = await this.client(idp, waiting, ValidateInResponseTo.always).getAuthorizeUrlAsync(
      '',
      undefined,
      {},
    );
    if (!waiting.id || !waiting.at) throw new LoginFailed('unavailable', 'the AuthnRequest was not made');
    return { location, flow: { idp: idp.entityId, request: waiting.id, at: waiting.at } };
  }

  async callback(req: ProviderRequest, flow: Record<string, string> | null): Promise<SignedInPerson> {
    const response = req.body.SAMLResponse;
    if (req.method !== 'POST' || typeof response !== 'string' || !response)
      throw new LoginFailed('failed', 'no SAMLResponse was posted');
    // An answer to no request of this browser (an identity provider's own sign-in, or another browser's) is
    // refused: it could be a stolen or replayed answer, and InResponseTo is what binds it to this browser.
    if (!flow?.idp || !flow.request || !flow.at)
      throw new LoginFailed('failed', 'no sign-in of this browser is waiting (its flow cookie is missing or expired)');
    const idp = await this.idp(flow.idp);
    let profile: Profile | null;
    try {
      ({ profile } = await this.client(
        idp,
        new FlowCache(flow.request, flow.at),
        ValidateInResponseTo.always,
      ).validatePostResponseAsync({ SAMLResponse: response }));
    } catch (e) {
      if (e instanceof SamlStatusError)
        throw new LoginFailed('denied', `the identity provider answered: ${e.message.slice(0, 200)}`);
      throw new LoginFailed(
        'failed',
        `the SAML response was refused: ${String((e as Error)?.message ?? e).slice(0, 300)}`,
      );
    }
    if (!profile) throw new LoginFailed('failed', 'the SAML response holds no assertion');
    if (profile.issuer !== idp.entityId)
      throw new LoginFailed('failed', `the assertion's issuer is not ${idp.entityId}`);
    const assertion = await this.checkAssertion(profile);
    return this.person(profile, idp, assertion);
  }

  /**
   * What node-saml leaves to its caller, read from the signature-verified assertion: the recipient is ferry's
   * assertion consumer service, and the assertion's id is used once (every node shares the memory of it).
   */
  private async checkAssertion(profile: Profile): Promise<{ id: string }> {
    const xml = profile.getAssertionXml?.();
    if (!xml) throw new LoginFailed('failed', 'the assertion could not be read');
    const doc = await parseDomFromString(xml);
    const root = doc.documentElement;
    const id = root.getAttribute('ID') ?? '';
    if (!id) throw new LoginFailed('failed', 'the assertion has no ID');
    const confirmations = xpath.selectElements(root, ".//*[local-name()='SubjectConfirmationData']");
    const recipients = confirmations.map((c) => c.getAttribute('Recipient')).filter((r): r is string => !!r);
    if (recipients.length === 0 || recipients.some((r) => r !== this.acsUrl))
      throw new LoginFailed('failed', `the assertion's recipient is not ${this.acsUrl}`);
    const ends = [
      ...confirmations.map((c) => c.getAttribute('NotOnOrAfter')),
      ...xpath.selectElements(root, "./*[local-name()='Conditions']").map((c) => c.getAttribute('NotOnOrAfter')),
    ]
      .map((t) => (t ? Date.parse(t) : NaN))
      .filter((t) => Number.isFinite(t));
    const now = this.deps.clock();
    // Remembered until it could no longer pass the time checks anyway (and a day at most).
    const until = Math.min(
      now + 86400,
      Math.ceil((ends.length ? Math.max(...ends) : Date.now() + 3600_000) / 1000) + this.cfg.clock_skew_s,
    );
    const key = `saml:${crypto.createHash('sha256').update(`${profile.issuer}\n${id}`).digest('hex')}`;
    if (!(await this.deps.oneTime.use(key, Math.max(until, now + 1), now)))
      throw new LoginFailed('failed', `assertion ${id.slice(0, 80)} was already used (a replay)`);
    return { id };
  }

  private person(profile: Profile, idp: IdpEntry, assertion: { id: string }): SignedInPerson {
    const attrs = (profile.attributes ?? {}) as Record<string, unknown>;
    let uid = '';
    for (const name of this.cfg.uid_attributes) {
      uid = attributeValues(attrs, name)[0] ?? '';
      if (uid) break;
    }
    if (!uid || uid.length > 256 || /[\s\x00-\x1f]/.test(uid))
      throw new LoginFailed(
        'failed',
        `assertion ${assertion.id.slice(0, 80)} from ${idp.entityId} has none of ${this.cfg.uid_attributes.join(', ')}`,
      );
    const emails = [
      ...new Set(
        attributeValues(attrs, this.cfg.email_attribute)
          .map((m) => m.toLowerCase())
          .filter(isEmail),
      ),
    ];
    if (emails.length === 0)
      throw new LoginFailed('no_email', `user ${uid} has no "${this.cfg.email_attribute}" attribute`);
    const name = this.cfg.name_attributes.map((n) => attributeValues(attrs, n)[0]).find(Boolean) ?? null;
    const adminValues = this.cfg.admin_attributes.flatMap((a) => attributeValues(attrs, a));
    const nameId = {
      idp: idp.entityId,
      nameID: profile.nameID,
      nameIDFormat: profile.nameIDFormat,
      nameQualifier: profile.nameQualifier,
      spNameQualifier: profile.spNameQualifier,
      sessionIndex: profile.sessionIndex,
    };
    return {
      uid,
      emails,
      displayName: name,
      admin: adminValues.some((v) => this.cfg.admin_values.includes(v)),
      sessionRef: sessionRef(idp.entityId, profile.nameID, profile.sessionIndex),
      sessionData: JSON.stringify(nameId),
    };
  }

  /** SP-initiated single logout: a signed LogoutRequest to the identity provider's SingleLogoutService. */
  async logoutUrl(session: ProviderSession): Promise<string | null> {
    if (!session.data) return null;
    const kept = JSON.parse(session.data) as {
      idp: string;
      nameID: string;
      nameIDFormat: string;
      nameQualifier?: string;
      spNameQualifier?: string;
      sessionIndex?: string;
    };
    const idp = await this.idp(kept.idp);
    if (!idp.sloUrl) return null;
    const user = {
      issuer: kept.idp,
      nameID: kept.nameID,
      nameIDFormat: kept.nameIDFormat,
      nameQualifier: kept.nameQualifier,
      spNameQualifier: kept.spNameQualifier,
      sessionIndex: kept.sessionIndex,
    };
    return this.client(idp, new FlowCache(), ValidateInResponseTo.never).getLogoutUrlAsync(user, '', {});
  }

  /**
   * /login/<id>/logout: the identity provider's answer to ferry's LogoutRequest (then on to the login page), or
   * a LogoutRequest it starts (IdP-initiated), which must be signed: its sessions end and it gets its answer.
   */
  async remoteLogout(req: ProviderRequest): Promise<{ endSessions: string[]; location: string | null }> {
    const q = req.url.searchParams;
    const message = q.get('SAMLRequest') ?? q.get('SAMLResponse');
    if (req.method !== 'GET' || !message)
      throw new LoginFailed('failed', 'no SAMLRequest or SAMLResponse in the query (HTTP-Redirect binding)');
    let issuer: string | null = null;
    try {
      const xml = zlib
        .inflateRawSync(Buffer.from(message, 'base64'), { maxOutputLength: 1024 * 1024 })
        .toString('utf8');
      issuer =
        xpath
          .selectElements((await parseDomFromString(xml)).documentElement, "./*[local-name()='Issuer']")[0]
          ?.textContent?.trim() ?? null;
    } catch {
      throw new LoginFailed('failed', 'the logout message could not be read');
    }
    const idp = await this.idp(issuer);
    if (q.get('SAMLRequest') && !q.get('Signature'))
      throw new LoginFailed('failed', `an unsigned LogoutRequest from ${idp.entityId}`);
    const saml = this.client(idp, new FlowCache(), ValidateInResponseTo.never);
    const query = Object.fromEntries(q.entries());
    let result: { profile: Profile | null; loggedOut: boolean };
    try {
      result = await saml.validateRedirectAsync(query, req.url.search.slice(1));
    } catch (e) {
      throw new LoginFailed(
        'failed',
        `the logout message from ${idp.entityId} was refused: ${String((e as Error)?.message ?? e).slice(0, 200)}`,
      );
    }
    if (!result.profile) return { endSessions: [], location: null };
    const p = result.profile;
    const location = await saml.getLogoutResponseUrlAsync(p, q.get('RelayState') ?? '', {}, true);
    return { endSessions: [sessionRef(idp.entityId, p.nameID, p.sessionIndex)], location };
  }
}

/** What a LogoutRequest names a sign-in by: the identity provider, the NameID and the SessionIndex. */
function sessionRef(idp: string, nameId: string, sessionIndex: string | undefined): string {
  return crypto
    .createHash('sha256')
    .update(`${idp}\n${nameId}\n${sessionIndex ?? ''}`)
    .digest('hex');
}

/**
 * node-saml's memory of requests waiting for an answer, for one browser: at the start it records the
 * AuthnRequest's id (kept in the flow cookie); at the callback it knows that one id only.
 */
class FlowCache implements CacheProvider {
  constructor(
    public id: string | null = null,
    public at: string | null = null,
  ) {}
  async saveAsync(key: string, value: string) {
    this.id = key;
    this.at = value;
    return { value, createdAt: Date.now() };
  }
  async getAsync(key: string) {
    return key === this.id ? this.at : null;
  }
  async removeAsync(key: string | null) {
    return key;
  }
}
