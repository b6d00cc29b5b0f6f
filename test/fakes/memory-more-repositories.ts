import type { Recipient, Transfer } from '../../src/domain/model';
import type {
  ClaimProgress,
  DownloadClaim,
  LoginDeviceRepository,
  LoginFailureRepository,
  OverrideRepository,
  RemoteApp,
  RemoteAppRepository,
  SharingControls,
  SharingRepository,
  SignatureRepository,
  VirusScanRecord,
  VirusScanRepository,
} from '../../src/domain/ports';

/**
 * The in-memory repositories of signed requests, login throttling, overrides, sharing controls and virus scans
 * (test/fakes/memory-repositories.ts holds the others). Their rows are part of the world's one state object, so a
 * unit of work that throws puts them back too; test/http/repository-contract.test.ts runs the same cases on them
 * as on SQLite and PostgreSQL.
 */
export interface MoreState {
  remoteApps: RemoteApp[];
  signatures: Record<string, number>;
  loginFailures: { id: number; key: string; at: number }[];
  loginDevices: { deviceId: string; userId: string; created: number; lastUsed: number }[];
  overrides: Record<string, unknown>;
  sharing: Record<number, SharingControls>;
  /** `lease`: the token of the response holding the claim, null when none does. */
  claims: (DownloadClaim & { recipientId: number; lease: string | null })[];
  reminders: { targetType: 'Recipient' | 'Guest'; targetId: number; days: number; sent: number }[];
  scans: (Omit<VirusScanRecord, 'findings'> & { claimUntil: number | null; retryAt: number })[];
  findings: { transferId: number; fileId: number; signature: string }[];
}

export function emptyMoreState(): MoreState {
  return {
    remoteApps: [],
    signatures: {},
    loginFailures: [],
    loginDevices: [],
    overrides: {},
    sharing: {},
    claims: [],
    reminders: [],
    scans: [],
    findings: [],
  };
}

/** What these fakes read of the rest of the world: its Transfers, recipients and received files. */
export interface WorldView {
  more: MoreState;
  next: number;
  transfers: Transfer[];
  recipients: Omit<Recipient, 'errors'>[];
  received: { recipientId: number; fileId: number }[];
}

type View = () => WorldView;
const copy = <T>(v: T): T => structuredClone(v);

export class MemoryRemoteApps implements RemoteAppRepository {
  constructor(private readonly s: View) {}
  private get apps() {
    return this.s().more.remoteApps;
  }
  async get(name: string) {
    return copy(this.apps.find((a) => a.name === name));
  }
  async add(name: string, secret: string, isAdmin: boolean, now: number) {
    if (this.apps.some((a) => a.name === name)) return false;
    this.apps.push({ name, secret, oldSecret: null, oldSecretUntil: null, isAdmin, created: now });
    return true;
  }
  async rotate(name: string, secret: string, oldUntil: number | null) {
    const a = this.apps.find((x) => x.name === name);
    if (!a) return false;
    a.oldSecret = oldUntil === null ? null : a.secret;
    a.oldSecretUntil = oldUntil;
    a.secret = secret;
    return true;
  }
  async list() {
    return copy([...this.apps].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  }
  async remove(name: string) {
    const before = this.apps.length;
    this.s().more.remoteApps = this.apps.filter((a) => a.name !== name);
    return this.s().more.remoteApps.length < before;
  }
}

export class MemorySignatures implements SignatureRepository {
  constructor(private readonly s: View) {}
  async use(signature: string, expires: number, now: number) {
    const used = this.s().more.signatures;
    // A row whose window has passed is replaced, as the databases' conditional upsert does.
    if (signature in used && used[signature] >= now) return false;
    used[signature] = expires;
    return true;
  }
  async release(signature: string) {
    delete this.s().more.signatures[signature];
  }
  async count() {
    return Object.keys(this.s().more.signatures).length;
  }
}

export class MemoryLoginFailures implements LoginFailureRepository {
  constructor(private readonly s: View) {}
  async hold() {
    // Units of work run one at a time here: nothing to wait for.
  }
  async add(key: string, at: number) {
    const id = this.s().next++;
    this.s().more.loginFailures.push({ id, key, at });
    return id;
  }
  async window(key: string, since: number) {
    const ats = this.s()
      .more.loginFailures.filter((f) => f.key === key && f.at > since)
      .map((f) => f.at);
    return { count: ats.length, oldest: ats.length ? Math.min(...ats) : null };
  }
  async remove(id: number) {
    this.s().more.loginFailures = this.s().more.loginFailures.filter((f) => f.id !== id);
  }
  async clear(key: string) {
    this.s().more.loginFailures = this.s().more.loginFailures.filter((f) => f.key !== key);
  }
}

export class MemoryLoginDevices implements LoginDeviceRepository {
  constructor(private readonly s: View) {}
  async known(deviceId: string, userId: string) {
    return this.s().more.loginDevices.some((d) => d.deviceId === deviceId && d.userId === userId);
  }
  async remember(deviceId: string, userId: string, now: number) {
    const d = this.s().more.loginDevices.find((x) => x.deviceId === deviceId && x.userId === userId);
    if (d) d.lastUsed = now;
    else this.s().more.loginDevices.push({ deviceId, userId, created: now, lastUsed: now });
  }
}

export class MemoryOverrides implements OverrideRepository {
  constructor(private readonly s: View) {}
  async load() {
    return copy(this.s().more.overrides);
  }
  async save(values: Record<string, unknown>) {
    // Stored as JSON, as the databases store each value: what cannot be JSON does not survive.
    this.s().more.overrides = JSON.parse(JSON.stringify(values));
  }
}

type Counts = { recipientId: number; fileId: number; done: number }[];

export class MemorySharing implements SharingRepository {
  constructor(private readonly s: View) {}
  private get m() {
    return this.s().more;
  }
  async controls(transferId: number) {
    return copy(this.m.sharing[transferId] ?? { downloadLimit: null, passwordHash: null });
  }
  async setControls(transferId: number, c: SharingControls) {
    this.m.sharing[transferId] = { downloadLimit: c.downloadLimit, passwordHash: c.passwordHash };
  }
  async holdLink() {
    // Units of work run one at a time here: the link is held already.
  }
  async claims(recipientId: number, fileIds: number[]) {
    return this.m.claims
      .filter((c) => c.recipientId === recipientId && fileIds.includes(c.fileId))
      .sort((a, b) => a.id - b.id)
      .map(({ recipientId: _r, lease: _l, ...c }) => copy(c));
  }
  async claim(recipientId: number, fileId: number, now: number, lease: string, until: number) {
    const id = this.s().next++;
    this.m.claims.push({
      id,
      recipientId,
      fileId,
      claimed: now,
      done: null,
      sent: [],
      resent: 0,
      lease,
      leaseUntil: until,
    });
    return id;
  }
  async take(id: number, lease: string, until: number) {
    const c = this.m.claims.find((x) => x.id === id);
    if (c) Object.assign(c, { lease, leaseUntil: until });
  }
  async record(id: number, lease: string, p: ClaimProgress) {
    // Only the response holding the claim writes: one whose lease lapsed and was taken over writes nothing.
    const c = this.m.claims.find((x) => x.id === id && x.lease === lease);
    if (!c) return false;
    c.sent = copy(p.sent);
    c.resent = p.resent;
    if (p.done !== null) c.done = p.done;
    if (p.leaseUntil === null) Object.assign(c, { lease: null, leaseUntil: 0 });
    else c.leaseUntil = p.leaseUntil;
    return true;
  }
  private countsOf(transferId: number): Counts {
    const ofTransfer = new Set(
      this.s()
        .recipients.filter((r) => r.transferId === transferId)
        .map((r) => r.id),
    );
    const out = new Map<string, Counts[number]>();
    for (const c of this.m.claims) {
      if (c.done === null || !ofTransfer.has(c.recipientId)) continue;
      const key = `${c.recipientId}/${c.fileId}`;
      const row = out.get(key) ?? { recipientId: c.recipientId, fileId: c.fileId, done: 0 };
      row.done++;
      out.set(key, row);
    }
    return [...out.values()];
  }
  async doneCounts(transferId: number) {
    return this.countsOf(transferId);
  }
  async viewsOf(transferIds: number[]) {
    const out = new Map<number, { controls: SharingControls; counts: Counts }>();
    for (const id of transferIds) out.set(id, { controls: await this.controls(id), counts: this.countsOf(id) });
    return out;
  }
  async remindableTransfers(now: number, until: number) {
    return copy(
      this.s()
        .transfers.filter((t) => t.status === 'available' && t.expires > now && t.expires <= until)
        .sort((a, b) => a.id - b.id),
    );
  }
  async recipientsWithAll(transferId: number, fileIds: number[]) {
    const out = new Set<number>();
    if (fileIds.length === 0) return out;
    for (const r of this.s().recipients.filter((x) => x.transferId === transferId)) {
      const got = this.s().received.filter((x) => x.recipientId === r.id && fileIds.includes(x.fileId));
      if (got.length >= fileIds.length) out.add(r.id);
    }
    return out;
  }
  async claimReminder(targetType: 'Recipient' | 'Guest', targetId: number, days: number, now: number) {
    const had = this.m.reminders.some((r) => r.targetType === targetType && r.targetId === targetId && r.days === days);
    if (!had) this.m.reminders.push({ targetType, targetId, days, sent: now });
    return !had;
  }
  async remindersOf(targetType: 'Recipient' | 'Guest', targetIds: number[]) {
    return this.m.reminders
      .filter((r) => r.targetType === targetType && targetIds.includes(r.targetId))
      .sort((a, b) => a.sent - b.sent)
      .map(({ targetId, days, sent }) => ({ targetId, days, sent }));
  }
}

export class MemoryVirusScans implements VirusScanRepository {
  constructor(private readonly s: View) {}
  private get m() {
    return this.s().more;
  }
  async begin(transferId: number, now: number) {
    if (this.m.scans.some((x) => x.transferId === transferId)) return;
    this.m.scans.push({
      transferId,
      state: 'checking',
      started: now,
      finished: null,
      error: null,
      claimUntil: null,
      retryAt: now,
    });
  }
  async find(transferId: number) {
    return (await this.findMany([transferId])).get(transferId);
  }
  async findMany(transferIds: number[]) {
    const out = new Map<number, VirusScanRecord>();
    for (const x of this.m.scans.filter((s) => transferIds.includes(s.transferId))) {
      const { claimUntil: _, retryAt: __, ...scan } = x;
      const findings = this.m.findings
        .filter((f) => f.transferId === x.transferId)
        .sort((a, b) => a.fileId - b.fileId)
        .map(({ fileId, signature }) => ({ fileId, signature }));
      out.set(x.transferId, { ...copy(scan), findings });
    }
    return out;
  }
  async claim(now: number, until: number, dueBy: number) {
    const due = this.m.scans
      .filter(
        (x) =>
          (x.state === 'checking' || x.state === 'held') &&
          x.retryAt <= dueBy &&
          (x.claimUntil === null || x.claimUntil < now),
      )
      .sort((a, b) => a.retryAt - b.retryAt)[0];
    if (!due) return undefined;
    const lapsed = due.claimUntil !== null;
    due.claimUntil = until;
    return { transferId: due.transferId, lapsed };
  }
  async renew(transferId: number, until: number) {
    const x = this.m.scans.find((s) => s.transferId === transferId);
    if (x && (x.state === 'checking' || x.state === 'held') && x.claimUntil !== null) x.claimUntil = until;
  }
  async nextLapse(now: number) {
    const lapses = this.m.scans
      .filter((x) => (x.state === 'checking' || x.state === 'held') && x.claimUntil !== null && x.claimUntil >= now)
      .map((x) => x.claimUntil as number);
    return lapses.length ? Math.min(...lapses) : undefined;
  }
  async finish(
    transferId: number,
    state: 'clean' | 'infected' | 'not_scanned',
    now: number,
    error: string | null,
    findings: { fileId: number; signature: string }[],
  ) {
    const x = this.m.scans.find((s) => s.transferId === transferId);
    if (x) Object.assign(x, { state, finished: now, claimUntil: null, error });
    for (const f of findings) {
      this.m.findings = this.m.findings.filter((g) => g.fileId !== f.fileId);
      this.m.findings.push({ transferId, fileId: f.fileId, signature: f.signature });
    }
  }
  async hold(transferId: number, retryAt: number, error: string) {
    const x = this.m.scans.find((s) => s.transferId === transferId);
    if (x) Object.assign(x, { state: 'held', retryAt, claimUntil: null, error });
  }
  async held() {
    const closed = new Set(
      this.s()
        .transfers.filter((t) => t.status === 'closed')
        .map((t) => t.id),
    );
    return this.m.scans
      .filter((x) => x.state === 'held' && !closed.has(x.transferId))
      .map((x) => x.transferId)
      .sort((a, b) => a - b);
  }
}

/** Purging a Transfer takes its sharing controls, download claims and scan with it (the databases' cascades). */
export function forgetTransfer(s: WorldView, transferId: number, recipientIds: Set<number>): void {
  const m = s.more;
  delete m.sharing[transferId];
  m.claims = m.claims.filter((c) => !recipientIds.has(c.recipientId));
  m.scans = m.scans.filter((x) => x.transferId !== transferId);
  m.findings = m.findings.filter((f) => f.transferId !== transferId);
}
