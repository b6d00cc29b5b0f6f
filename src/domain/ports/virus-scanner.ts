/**
 * A virus scanner the completed files are streamed to (docs/sharing.md, Virus scanning): clamd, through
 * src/antivirus/clamd.ts. The domain reads the file from the store and hands its bytes over in order.
 */
export type ScanVerdict = { clean: true } | { clean: false; signature: string };

export interface VirusScanner {
  /**
   * Streams the bytes to the scanner and returns its verdict. A block's memory may be reused once the next
   * block is asked for. Throws (code FERRY_SCANNER_DOWN) when the scanner cannot be reached, stays silent
   * too long, or answers with an error: the caller applies on_error.
   */
  scan(blocks: AsyncIterable<Uint8Array>): Promise<ScanVerdict>;
}
