import { addressList } from '../../util/address-list';
import client from 'prom-client';
import type { Middleware } from 'koa';
import type { FerryState } from '../state';
import { DeliveryError, type MailTransport } from '../../mail/transport';

/**
 * What the composition root reads from the database and the queues at scrape time. Each is one cheap query
 * or a number in memory; a scrape never walks the stored files.
 */
export interface MetricsSources {
  transfersByStatus(): Promise<Record<string, number>>;
  mailQueueDepth(): Promise<number>;
  hashingBacklog(): number;
  listReadsWaiting(): number;
}

/** Routes whose accepted body is file data. */
const CHUNK_ROUTES = new Set(['/file/:id/chunk/:offset', '/file/:id/whole']);

/**
 * ferry's Prometheus metrics, in a registry of their own per app instance (never prom-client's global one:
 * tests run several apps in one process, and two instances must not add to each other's counters). The
 * counters are increased at the edges — the HTTP middleware, the mail transport, the purge timer — so the
 * domain stays free of instrumentation.
 */
export class Metrics {
  readonly registry = new client.Registry();
  readonly requests: client.Counter<'method' | 'route' | 'status'>;
  readonly duration: client.Histogram<'method' | 'route'>;
  readonly uploadedBytes: client.Counter;
  readonly downloadedBytes: client.Counter;
  readonly chunks: client.Counter;
  readonly storageErrors: client.Counter<'kind'>;
  readonly mailSent: client.Counter;
  readonly mailFailures: client.Counter<'kind'>;
  readonly purgeRuns: client.Counter<'result'>;
  readonly purged: client.Counter<'what'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    client.collectDefaultMetrics({ register: this.registry });
    this.requests = new client.Counter({
      name: 'ferry_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.duration = new client.Histogram({
      name: 'ferry_http_request_duration_seconds',
      help: 'Time from a request to the last byte of its answer, by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 120],
      registers,
    });
    this.uploadedBytes = new client.Counter({
      name: 'ferry_upload_bytes_total',
      help: 'File bytes received in accepted chunks',
      registers,
    });
    this.downloadedBytes = new client.Counter({
      name: 'ferry_download_bytes_total',
      help: 'Bytes sent in answers to downloads',
      registers,
    });
    this.chunks = new client.Counter({
      name: 'ferry_chunks_received_total',
      help: 'Chunks accepted and stored',
      registers,
    });
    this.storageErrors = new client.Counter({
      name: 'ferry_storage_errors_total',
      help: 'Requests that failed in the file store or the database (disk full, unavailable, stored bytes not matching their SHA-256)',
      labelNames: ['kind'],
      registers,
    });
    this.mailSent = new client.Counter({
      name: 'ferry_mail_sent_total',
      help: 'Messages handed to the mail transport',
      registers,
    });
    this.mailFailures = new client.Counter({
      name: 'ferry_mail_send_failures_total',
      help: 'Attempts to send a message that failed (temporary: retried later; permanent: bounced)',
      labelNames: ['kind'],
      registers,
    });
    this.purgeRuns = new client.Counter({
      name: 'ferry_purge_runs_total',
      help: 'Purge passes, by result',
      labelNames: ['result'],
      registers,
    });
    this.purged = new client.Counter({
      name: 'ferry_purge_removed_total',
      help: 'What purge passes removed or closed, by kind',
      labelNames: ['what'],
      registers,
    });
    new client.Gauge({
      name: 'ferry_transfers',
      help: 'Transfers in the database, by status (read at scrape time)',
      labelNames: ['status'],
      registers,
      async collect() {
        this.reset();
        for (const [status, n] of Object.entries(await sources.transfersByStatus())) this.set({ status }, n);
      },
    });
    new client.Gauge({
      name: 'ferry_mail_queue_depth',
      help: 'Messages waiting in the mail queue (read at scrape time)',
      registers,
      async collect() {
        this.set(await sources.mailQueueDepth());
      },
    });
    new client.Gauge({
      name: 'ferry_hashing_backlog',
      help: 'Digest jobs waiting for the hashing thread',
      registers,
      collect() {
        this.set(sources.hashingBacklog());
      },
    });
    new client.Gauge({
      name: 'ferry_list_reads_waiting',
      help: 'Pages of Transfers waiting in this node for a turn on PostgreSQL',
      registers,
      collect() {
        this.set(sources.listReadsWaiting());
      },
    });
  }

  /**
   * Counts every request once its answer has gone, by the router's pattern (never the raw path, which holds
   * ids and tokens and would grow the label set without bound); requests no route matched count as
   * "unmatched".
   */
  middleware(): Middleware<FerryState> {
    return async (ctx, next) => {
      const stop = this.duration.startTimer();
      const socket = ctx.req.socket;
      const written0 = socket?.bytesWritten ?? 0;
      try {
        await next();
      } finally {
        const done = () => {
          const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
          const method = ctx.method;
          const status = ctx.res.headersSent ? ctx.res.statusCode : ctx.status;
          stop({ method, route });
          this.requests.inc({ method, route, status: String(status) });
          if (CHUNK_ROUTES.has(route) && status < 300) this.chunkStored(ctx.request.length ?? 0);
          if (route.startsWith('/download') && status < 300)
            this.downloadedBytes.inc(Math.max(0, (socket?.bytesWritten ?? 0) - written0));
          const id = (ctx.body as { message?: unknown } | null | undefined)?.message;
          if (ctx.state.digestMismatch) this.storageErrors.inc({ kind: 'digest_mismatch' });
          if (ctx.state.storeCut) this.storageErrors.inc({ kind: 'download_cut' });
          if (status === 507) this.storageErrors.inc({ kind: 'disk_full' });
          else if (status === 503 && (id === 'database_unavailable' || id === 'storage_unavailable'))
            this.storageErrors.inc({ kind: id });
        };
        if (ctx.res.writableFinished || ctx.res.destroyed) done();
        else ctx.res.once('close', done);
      }
    };
  }

  /** A chunk of `bytes` bytes was stored (called by the chunk routes once the store has it). */
  chunkStored(bytes: number): void {
    this.chunks.inc();
    this.uploadedBytes.inc(bytes);
  }

  /** The mail transport, counting what it sends and what fails (the queue retries temporary failures). */
  countedTransport(t: MailTransport): MailTransport {
    const m = this;
    return {
      async send(msg) {
        try {
          await t.send(msg);
          m.mailSent.inc();
        } catch (e) {
          m.mailFailures.inc({ kind: e instanceof DeliveryError && e.permanent ? 'permanent' : 'temporary' });
          throw e;
        }
      },
      verify: t.verify ? () => t.verify!() : undefined,
      close: () => t.close(),
    };
  }

  /** One purge pass ended: counted with what it closed and removed. */
  purgeOutcome(
    outcome:
      | {
          transfers_expired: number;
          guests_expired: number;
          abandoned_transfers_deleted: number;
          closed_transfers_deleted: number;
          orphan_files_deleted: number;
          bytes_freed: number;
        }
      | Error,
  ): void {
    if (outcome instanceof Error) {
      this.purgeRuns.inc({ result: 'failed' });
      return;
    }
    this.purgeRuns.inc({ result: 'ok' });
    for (const what of [
      'transfers_expired',
      'guests_expired',
      'abandoned_transfers_deleted',
      'closed_transfers_deleted',
      'orphan_files_deleted',
      'bytes_freed',
    ] as const) {
      this.purged.inc({ what }, outcome[what]);
    }
  }

  async text(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}

/** The peers GET /metrics answers: exact addresses and CIDR ranges, IPv4 and IPv6 (an IPv4-mapped peer as IPv4). */
export function allowList(entries: string[]): (ip: string) => boolean {
  return addressList(entries, 'metrics.allow');
}
