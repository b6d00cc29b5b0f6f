import path from 'node:path';

/** What the units are made from: where things are, and as whom ferry runs. */
export interface UnitFacts {
  /** Absolute path of the ferry executable. */
  binary: string;
  /** Absolute path of the config file. */
  config: string;
  /** A dedicated system user, or null for systemd's DynamicUser (then the data dir is a StateDirectory). */
  user: string | null;
  /** Absolute data_dir of the config: the only place ferry writes, besides `writable`. */
  dataDir: string;
  /** Other paths ferry writes to (the log file's folder, a mail sink outside the data dir). */
  writable: string[];
  /** listen.port: below 1024 ferry needs CAP_NET_BIND_SERVICE and gets only that. */
  port: number;
}

export interface UnitFile {
  name: string;
  text: string;
}

/** A word of an ExecStart= line or a path list, quoted as systemd.syntax(7) reads it; % and $ are specifiers there. */
export function systemdWord(s: string): string {
  const escaped = s.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return /[\s"'\\;]/.test(escaped) ? `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : escaped;
}

/**
 * The sandbox both units share: ferry may write only its data dir (and the log folder), sees no home
 * directories, other users' temp files, devices or kernel knobs, cannot gain privileges or capabilities, and
 * makes only the system calls of an ordinary service. Not MemoryDenyWriteExecute: V8 compiles JavaScript to
 * machine code at run time, which that setting forbids.
 */
function sandbox(f: UnitFacts): string[] {
  const rw = [...new Set([...(f.user === null ? [] : [f.dataDir]), ...f.writable])];
  const lowPort = f.port > 0 && f.port < 1024;
  const identity =
    f.user === null
      ? ['DynamicUser=yes', `StateDirectory=${stateDirectoryOf(f.dataDir)}`, 'StateDirectoryMode=0700']
      : [`User=${f.user}`, `Group=${f.user}`];
  return [
    ...identity,
    'UMask=0077',
    'NoNewPrivileges=yes',
    `CapabilityBoundingSet=${lowPort ? 'CAP_NET_BIND_SERVICE' : ''}`,
    `AmbientCapabilities=${lowPort ? 'CAP_NET_BIND_SERVICE' : ''}`,
    'ProtectSystem=strict',
    ...(rw.length ? [`ReadWritePaths=${rw.map(systemdWord).join(' ')}`] : []),
    'ProtectHome=yes',
    'PrivateTmp=yes',
    'PrivateDevices=yes',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectKernelLogs=yes',
    'ProtectControlGroups=yes',
    'ProtectClock=yes',
    'ProtectHostname=yes',
    'ProtectProc=invisible',
    'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
    'RestrictNamespaces=yes',
    'RestrictRealtime=yes',
    'RestrictSUIDSGID=yes',
    'LockPersonality=yes',
    'RemoveIPC=yes',
    'SystemCallArchitectures=native',
    'SystemCallFilter=@system-service',
    'SystemCallErrorNumber=EPERM',
  ];
}

/** StateDirectory= takes a path below /var/lib; DynamicUser needs the data dir there (systemd owns it). */
export function stateDirectoryOf(dataDir: string): string {
  const rel = path.posix.relative('/var/lib', dataDir);
  if (!rel || rel.startsWith('..') || path.posix.isAbsolute(rel)) {
    throw new Error(
      `with a dynamic user the data_dir must be below /var/lib (it is ${dataDir}); set "data_dir": "/var/lib/ferry" or use --user`,
    );
  }
  return rel;
}

const header = (f: UnitFacts) => `# Written by: ferry service install. Config: ${f.config}`;

export function serveUnit(f: UnitFacts): UnitFile {
  const lines = [
    header(f),
    '[Unit]',
    'Description=ferry file transfer service',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=exec',
    `ExecStart=${systemdWord(f.binary)} serve -c ${systemdWord(f.config)}`,
    // SIGHUP reopens log.file (logrotate's postrotate: systemctl reload ferry); nothing else is reloaded.
    'ExecReload=/bin/kill -HUP $MAINPID',
    'Restart=on-failure',
    'RestartSec=2s',
    // SIGTERM lets in-flight requests finish (a chunk, a download's last bytes) before the exit.
    'TimeoutStopSec=60s',
    'LimitNOFILE=65536',
    ...sandbox(f),
    '',
    '[Install]',
    'WantedBy=multi-user.target',
  ];
  return { name: 'ferry.service', text: `${lines.join('\n')}\n` };
}

/** `ferry purge` as a oneshot service, for the timer (when the config's purge_interval_s is 0). */
export function purgeUnit(f: UnitFacts): UnitFile {
  const lines = [
    header(f),
    '[Unit]',
    'Description=ferry: remove expired transfers and guests',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=oneshot',
    `ExecStart=${systemdWord(f.binary)} purge -c ${systemdWord(f.config)}`,
    ...sandbox({ ...f, port: 0 }),
  ];
  return { name: 'ferry-purge.service', text: `${lines.join('\n')}\n` };
}

export function purgeTimer(f: UnitFacts): UnitFile {
  const lines = [
    header(f),
    '[Unit]',
    'Description=ferry: hourly purge of what has expired',
    '',
    '[Timer]',
    'OnCalendar=hourly',
    'RandomizedDelaySec=5min',
    // A purge missed while the machine was off runs at the next boot.
    'Persistent=true',
    '',
    '[Install]',
    'WantedBy=timers.target',
  ];
  return { name: 'ferry-purge.timer', text: `${lines.join('\n')}\n` };
}

export function allUnits(f: UnitFacts): UnitFile[] {
  return [serveUnit(f), purgeUnit(f), purgeTimer(f)];
}
