import { ClamdScanner } from '../antivirus/clamd';
import type { Config } from '../config/defaults';
import type { ScanPolicy } from '../domain/virus-scans';

/** Virus scanning (docs/sharing.md), from the config's antivirus key: null scans nothing. */
export function scanPolicyOf(config: Config): () => ScanPolicy | null {
  const av = config.antivirus;
  if (!av) return () => null;
  const policy: ScanPolicy = {
    scanner: new ClamdScanner(av.clamd, av.timeout_s * 1000),
    onInfected: av.on_infected,
    onError: av.on_error,
    maxBytes: av.max_bytes,
  };
  return () => policy;
}
