import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY, runFerry } from '../helpers/binary';
import { tempDir } from '../helpers/server';
import { systemdAnalyze } from '../helpers/system/parts';

/** A config an admin would write for a service: absolute data dir, a log file. */
function writeServiceConfig(dir: string, extra: Record<string, unknown> = {}, name = 'ferry.json'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    JSON.stringify({
      data_dir: path.join(dir, 'data'),
      log: { format: 'json', file: path.join(dir, 'log', 'ferry.log') },
      ...extra,
    }),
  );
  return file;
}

/** systemd's own check of unit files: exit 0 and not one warning (an unknown key is only a warning). */
async function verify(files: string[]): Promise<void> {
  const r = spawnSync(await systemdAnalyze(), ['verify', ...files], { encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stderr.trim(), '', `systemd-analyze verify warned:\n${r.stderr}`);
}

test('service install writes a hardened unit and a purge timer that systemd-analyze verify accepts', async () => {
  const dir = tempDir('ferry-service-');
  try {
    const config = writeServiceConfig(dir);
    const units = path.join(dir, 'units');
    const r = runFerry(['service', 'install', '--user', 'ferry', '--config', config, '--dir', units]);
    assert.is(r.code, 0, r.stderr);
    assert.equal(fs.readdirSync(units).sort(), ['ferry-purge.service', 'ferry-purge.timer', 'ferry.service']);
    const unit = fs.readFileSync(path.join(units, 'ferry.service'), 'utf8');
    for (const line of [
      `ExecStart=${BINARY} serve -c ${config}`,
      'User=ferry',
      'ProtectSystem=strict',
      `ReadWritePaths=${path.join(dir, 'data')} ${path.join(dir, 'log')}`,
      'NoNewPrivileges=yes',
      'PrivateTmp=yes',
      'ProtectHome=yes',
      'CapabilityBoundingSet=',
      'Restart=on-failure',
      'ExecReload=/bin/kill -HUP $MAINPID',
    ]) {
      assert.ok(unit.split('\n').includes(line), `missing ${line}`);
    }
    const purge = fs.readFileSync(path.join(units, 'ferry-purge.service'), 'utf8');
    assert.ok(purge.includes(`ExecStart=${BINARY} purge -c ${config}`));
    assert.ok(purge.includes('Type=oneshot') && purge.includes('ProtectSystem=strict'));
    assert.ok(fs.readFileSync(path.join(units, 'ferry-purge.timer'), 'utf8').includes('OnCalendar=hourly'));
    // The next steps name the user and the folders to create.
    assert.match(r.stdout, /useradd --system .* ferry/);
    assert.match(r.stdout, /systemctl enable --now ferry\.service/);
    await verify(fs.readdirSync(units).map((f) => path.join(units, f)));

    // --print shows the same units and writes nothing.
    const printed = runFerry([
      'service',
      'install',
      '--config',
      config,
      '--dir',
      path.join(dir, 'elsewhere'),
      '--print',
    ]);
    assert.is(printed.code, 0, printed.stderr);
    assert.ok(printed.stdout.includes(unit.trim()));
    assert.not.ok(fs.existsSync(path.join(dir, 'elsewhere')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('service install: a dynamic user with the data dir as its StateDirectory; a low port gets only CAP_NET_BIND_SERVICE', async () => {
  const dir = tempDir('ferry-service-');
  try {
    const config = writeServiceConfig(dir, { data_dir: '/var/lib/ferry', listen: { host: '0.0.0.0', port: 443 } });
    const units = path.join(dir, 'units');
    const r = runFerry(['service', 'install', '--dynamic-user', '--config', config, '--dir', units]);
    assert.is(r.code, 0, r.stderr);
    const unit = fs.readFileSync(path.join(units, 'ferry.service'), 'utf8').split('\n');
    for (const line of [
      'DynamicUser=yes',
      'StateDirectory=ferry',
      'CapabilityBoundingSet=CAP_NET_BIND_SERVICE',
      'AmbientCapabilities=CAP_NET_BIND_SERVICE',
    ]) {
      assert.ok(unit.includes(line), `missing ${line}`);
    }
    assert.not.ok(unit.some((l) => l.startsWith('User=')));
    await verify(fs.readdirSync(units).map((f) => path.join(units, f)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('service install --root: reads the config and writes the units below a package root, naming the paths inside it', async () => {
  const dir = tempDir('ferry-service-');
  try {
    const root = path.join(dir, 'root');
    fs.mkdirSync(path.join(root, 'etc/ferry'), { recursive: true });
    fs.writeFileSync(path.join(root, 'etc/ferry/ferry.json'), JSON.stringify({ data_dir: '/var/lib/ferry' }));
    const args = ['service', 'install', '--root', root, '--config', '/etc/ferry/ferry.json'];
    const r = runFerry([...args, '--binary', '/usr/bin/ferry', '--dir', '/lib/systemd/system']);
    assert.is(r.code, 0, r.stderr);
    const units = path.join(root, 'lib/systemd/system');
    assert.equal(fs.readdirSync(units).sort(), ['ferry-purge.service', 'ferry-purge.timer', 'ferry.service']);
    const unit = fs.readFileSync(path.join(units, 'ferry.service'), 'utf8').split('\n');
    for (const line of ['ExecStart=/usr/bin/ferry serve -c /etc/ferry/ferry.json', 'ReadWritePaths=/var/lib/ferry'])
      assert.ok(unit.includes(line), `missing ${line}`);
    assert.not.match(unit.join('\n'), root);
    assert.not.match(r.stdout, 'useradd', 'a package makes its user itself');
    // The binary's path inside the root must be given: this executable's own path means nothing there.
    const noBinary = runFerry([...args, '--dir', '/lib/systemd/system']);
    assert.is(noBinary.code, 1);
    assert.match(noBinary.stderr, '--root: give --config and --binary as absolute paths');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('service install refuses what would make a unit that cannot start, with one line and exit 1', () => {
  const dir = tempDir('ferry-service-');
  try {
    const cases: [string[], RegExp][] = [
      [['--config', path.join(dir, 'absent.json')], /does not exist/],
      [['--config', writeServiceConfig(dir, { data_dir: './data' }, 'relative.json')], /data_dir .* is relative/],
      [['--config', writeServiceConfig(dir), '--dynamic-user'], /below \/var\/lib/],
      [['--config', writeServiceConfig(dir), '--user', 'Bad User'], /--user/],
    ];
    for (const [args, message] of cases) {
      const r = runFerry(['service', 'install', '--dir', path.join(dir, 'units'), ...args]);
      assert.is(r.code, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message);
      assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    assert.not.ok(fs.existsSync(path.join(dir, 'units')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
