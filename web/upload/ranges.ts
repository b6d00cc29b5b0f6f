// The range arithmetic is the server's own (src/domain/ranges.ts, pure functions), bundled into the page; the
// chunk plan is shared with the command-line client (src/shared/chunks.ts).
import { addRange, coveredBytes, type Range } from '../../src/domain/ranges';

export { addRange, type Range };
export { missingChunks, isRangeList } from '../../src/shared/chunks';
export const rangesTotal = coveredBytes;
