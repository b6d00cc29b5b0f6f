/** What a suite starts and must end: servers and sinks close, system services stop, SDK clients are destroyed. */
type Part = { close(): unknown } | { stop(): unknown } | { destroy(): unknown } | null | undefined;

/**
 * Ends a suite's parts one after another in the order given (each server before what it uses), skipping those
 * its `before` never got to start.
 */
export async function endAll(...parts: Part[]): Promise<void> {
  for (const p of parts) {
    if (!p) continue;
    if ('close' in p) await p.close();
    else if ('stop' in p) await p.stop();
    else await p.destroy();
  }
}
