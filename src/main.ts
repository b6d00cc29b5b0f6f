import { runCli } from './cli/program';
import { processIO } from './cli/io';

runCli(process.argv.slice(2), processIO).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`internal error: ${String(e)}\n`);
    process.exitCode = 2;
  },
);
