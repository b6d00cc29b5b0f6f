// Runs only the S3 rows of the benchmark (node scripts/bench/s3-only.mjs [--quick] [--reps N]): for working on the
// S3 store without the whole run.
import path from 'node:path';
import { reexecOnProjectNode } from '../project-node.mjs';
import { MiB, makeFile, tempDir } from './lib.mjs';
import { s3Rows } from './s3.mjs';

await reexecOnProjectNode();
const quick = process.argv.includes('--quick');
const repsAt = process.argv.indexOf('--reps');
const size = quick ? 128 * MiB : 1024 * MiB;
const reps = repsAt > 0 ? Number(process.argv[repsAt + 1]) : quick ? 1 : 3;
const dir = tempDir();
const source = path.join(dir, 'source.bin');
makeFile(source, size);
const ratio = (f, b, of) => (of === 'speed' ? b.wall / f.wall : f.wall / b.wall);
await s3Rows({
  size,
  reps,
  source,
  dir,
  row(work, f, b, budget, each = []) {
    const r = ratio(f, b, budget.of);
    console.log(
      `${work}: ferry ${f.wall.toFixed(2)} s, baseline ${b.wall.toFixed(2)} s, ${r.toFixed(2)}× (budget ≥ ${budget.min}×)${each.length ? `; each: ${each.map((x) => x.toFixed(2)).join(', ')}` : ''}`,
    );
  },
});
