import type { Source } from '../../web/upload/uploader';

/** A file for the browser's upload engine run under Node: the bytes of a Buffer, as a picked File would give them. */
export class BufSource implements Source {
  readonly type = 'application/octet-stream';
  readonly lastModified = 1_700_000_000_000;
  constructor(
    readonly name: string,
    readonly data: Buffer,
  ) {}
  get size() {
    return this.data.length;
  }
  slice(start = 0, end = this.data.length): Blob {
    return new Blob([new Uint8Array(this.data.subarray(start, end))]);
  }
}
