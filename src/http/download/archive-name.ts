import { fitBytes, visibleName } from '../../util/names';

/**
 * The archive is saved under the Transfer's subject ("Q3 report.zip"), or "transfer-<id>" without one. The
 * subject is made a file name first: hidden characters out, path and reserved characters (/ \ : * ? " < > |)
 * as "-", spaces collapsed, at most 200 bytes; contentDisposition then writes it per RFC 6266/5987.
 */
export function archiveStem(subject: string | null, id: number): string {
  const name = fitBytes(
    visibleName(subject ?? '')
      .replace(/[\\/:*?"<>|]+/g, '-')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^[.\s-]+|[.\s]+$/g, ''),
    200,
  );
  return name || `transfer-${id}`;
}
