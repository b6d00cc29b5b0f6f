import { z } from 'zod';

/**
 * Only same-site relative paths are followed after login (no open redirect). Its own module: the login routes
 * and the login pages both use it, and neither may import the other (no import circle: docs/architecture.md).
 */
export function safeReturnPath(v: unknown): string {
  const path = sameSitePath.safeParse(v);
  return path.success ? path.data : '/';
}

const sameSitePath = z.string().regex(/^\/(?![/\\])[^\s]*$/);
