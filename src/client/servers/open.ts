import type { Credentials } from '../credentials';
import { FerryApi, type RetryNotice } from '../http';
import type { RetryPolicy } from '../../shared/retry';
import { detectServer, type FoundServer } from './detect';
import { FerryServer } from './ferry';
import { FileSenderServer } from './filesender';
import type { SendServer, ServerKind } from './server';

export interface ApiOptions {
  retry?: RetryPolicy;
  sockets?: number;
  onRetry?: (n: RetryNotice) => void;
}

/** Finds what kind of server the URL names and where its REST interface is (detect.ts), unsigned. */
export async function findServer(url: string, o: ApiOptions): Promise<{ found: FoundServer; probe: FerryApi }> {
  const probe = new FerryApi({ url }, { ...o, sockets: 2 });
  try {
    return { found: await detectServer(url, probe), probe };
  } catch (e) {
    probe.close();
    throw e;
  }
}

/** The server the credentials name, as the module for its kind (servers/server.ts), signing as their user. */
export async function openSendServer(creds: Credentials, o: ApiOptions): Promise<SendServer> {
  const { found, probe } = await findServer(creds.url, o);
  probe.close();
  const api = new FerryApi({ ...creds, url: found.restUrl }, o);
  api.copyClock(probe);
  if (found.kind === 'ferry') return new FerryServer(api, found.info);
  return new FileSenderServer(api, found.info, found.config ?? {}, creds.user);
}

/** Signs one request as the user, the way the server's kind lets a user read their own account. */
export async function checkLogin(creds: Credentials, o: ApiOptions): Promise<ServerKind> {
  const server = await openSendServer(creds, o);
  try {
    await server.account(`signing in to ${creds.url} as ${creds.user}`);
    return server.kind;
  } finally {
    server.api.close();
  }
}
