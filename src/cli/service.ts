import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { CliIO, UsageError } from './io';
import { loadConfig } from '../config/load';
import { mailRoute } from '../mail/route';
import { isSea } from '../util/sea';
import { allUnits, stateDirectoryOf, type UnitFacts } from '../service/systemd-units';

interface InstallFlags {
  user: string;
  dynamicUser?: boolean;
  config: string;
  binary?: string;
  dir: string;
  print?: boolean;
  root?: string;
}

const USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;

/** The facts the units are written from, each checked: a unit that cannot start is worse than an error now. */
export function unitFacts(o: InstallFlags): UnitFacts {
  if (o.root && !(path.isAbsolute(o.config) && o.binary && path.isAbsolute(o.binary)))
    throw new UsageError('--root: give --config and --binary as absolute paths, as seen from inside the root');
  const config = path.resolve(o.config);
  // With --root (a package or an image being built) the file is read below the root, the units name it as is.
  const file = o.root ? path.join(o.root, config) : config;
  if (!fs.existsSync(file))
    throw new UsageError(
      `${file} does not exist: write the config first (config.example.json lists every key), then install the service`,
    );
  const { config: c } = loadConfig(file);
  if (!path.isAbsolute(c.data_dir))
    throw new UsageError(
      `data_dir in ${config} is relative (${c.data_dir}); a service needs an absolute path such as /var/lib/ferry`,
    );
  const binary = o.binary ? (o.root ? o.binary : path.resolve(o.binary)) : isSea() ? process.execPath : null;
  if (!binary)
    throw new UsageError('--binary: the path of the ferry executable the service runs (e.g. /usr/local/bin/ferry)');
  if (!o.dynamicUser && !USER_NAME.test(o.user)) throw new UsageError(`--user: not a system user name: ${o.user}`);
  if (o.dynamicUser) {
    try {
      stateDirectoryOf(c.data_dir);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  const writable: string[] = [];
  const logFile = (c as { log?: { file?: string | null } }).log?.file;
  if (logFile) writable.push(path.dirname(path.resolve(logFile)));
  const route = mailRoute(c.mail, c.data_dir);
  const sinkDir = c.mail.sink?.dir ?? (route.kind === 'inbox' ? route.dir : null);
  if (sinkDir && path.isAbsolute(sinkDir) && path.relative(c.data_dir, sinkDir).startsWith('..'))
    writable.push(sinkDir);
  return { binary, config, user: o.dynamicUser ? null : o.user, dataDir: c.data_dir, writable, port: c.listen.port };
}

/** ferry service install [--user ferry | --dynamic-user] [--config F] [--binary B] [--dir D] [--print] */
export function serviceCommand(program: Command, io: CliIO): void {
  const service = program.command('service').description('run ferry as a systemd service');
  service
    .command('install')
    .description('write a hardened systemd unit for serve, and a timer for purge (or --print them)')
    .option('--user <name>', 'dedicated system user the service runs as', 'ferry')
    .option('--dynamic-user', 'let systemd make a throwaway user (data_dir must be below /var/lib)')
    .option('--config <file>', 'config file the service reads', '/etc/ferry/ferry.json')
    .option('--binary <path>', 'ferry executable the service runs (default: this one)')
    .option('--dir <dir>', 'where to write the units', '/etc/systemd/system')
    .option('--print', 'print the units instead of writing them')
    .option('--root <dir>', 'build a package or image: read --config and write --dir below this folder')
    .action((o: InstallFlags) => {
      const facts = unitFacts(o);
      const units = allUnits(facts);
      if (o.print) {
        io.out(units.map((u) => `# ${path.join(o.dir, u.name)}\n${u.text}`).join('\n'));
        return;
      }
      const dir = o.root ? path.join(o.root, path.resolve(o.dir)) : o.dir;
      fs.mkdirSync(dir, { recursive: true });
      for (const u of units) {
        const file = path.join(dir, u.name);
        fs.writeFileSync(`${file}.tmp`, u.text, { mode: 0o644 });
        fs.renameSync(`${file}.tmp`, file);
        io.out(`wrote ${file}`);
      }
      const steps = [
        ...(facts.user
          ? [
              `useradd --system --home-dir ${facts.dataDir} --shell /usr/sbin/nologin ${facts.user}   # once, if the user does not exist`,
              `install -d -m 0700 -o ${facts.user} -g ${facts.user} ${facts.dataDir}`,
              ...facts.writable.map((d) => `install -d -m 0750 -o ${facts.user} -g ${facts.user} ${d}`),
            ]
          : []),
        'systemctl daemon-reload',
        'systemctl enable --now ferry.service',
        'systemctl enable --now ferry-purge.timer   # when purge_interval_s is 0 (serve purges by itself otherwise)',
      ];
      if (o.root) return; // the package's own scripts make the user and enable the service
      io.out(`next, as root:\n${steps.map((s) => `  ${s}`).join('\n')}`);
    });
}
