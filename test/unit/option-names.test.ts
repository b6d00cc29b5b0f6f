import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultConfig, isRuntimeKey, type OptionName, problem, RUNTIME_KEYS } from '../../src/config/defaults';
import { Settings, type OverrideStore } from '../../src/config/settings';
import { ServiceError } from '../../src/domain/errors';

// The config's option names are a type (keyof Config): validation problems, PUT /config, its stored overrides
// and the environment's overrides name options through it. The `@ts-expect-error` lines are part of the test:
// if a misspelt name ever typechecks again, the directive is unused and `npm run typecheck` fails.

test('an option name is checked by the compiler', () => {
  assert.is(problem('max_transfer_files', 'must be at least 1'), 'max_transfer_files: must be at least 1');
  // @ts-expect-error not an option of the config
  problem('max_transfer_filez', 'x');
  const runtime: readonly OptionName[] = RUNTIME_KEYS;
  assert.ok(runtime.includes('user_quota'));
  // @ts-expect-error data_dir is an option, but not one PUT /config may change
  const notRuntime: (typeof RUNTIME_KEYS)[number] = 'data_dir';
  assert.is(isRuntimeKey(notRuntime), false);
  assert.is(isRuntimeKey('user_quota'), true);
});

/** The database's rows, kept in memory: what Settings reads and writes through its port. */
function memoryStore(rows: Record<string, unknown> = {}): OverrideStore & { rows: Record<string, unknown> } {
  return {
    rows,
    async load() {
      return { ...this.rows };
    },
    async save(values) {
      this.rows = { ...values };
    },
  };
}

async function refusal(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

test('PUT /config names the options it refuses, as the wire always did', async () => {
  const settings = new Settings(defaultConfig(), memoryStore());
  const unknown = await refusal(settings.update({ data_dir: '/x', max_transfer_files: 0, user_quota: 5 }));
  assert.is(unknown.id, 'rest_bad_parameter');
  assert.equal(unknown.details, ['data_dir', 'max_transfer_files']);
  const cross = await refusal(settings.update({ default_transfer_days_valid: 30 }));
  assert.equal(cross.details, ['default_transfer_days_valid']);
  assert.is(settings.get().default_transfer_days_valid, defaultConfig().default_transfer_days_valid);
});

test('stored overrides apply by option name; a name this version does not take is ignored and kept', async () => {
  const store = memoryStore({ max_transfer_files: 7, some_later_option: true });
  const settings = new Settings(defaultConfig(), store);
  await settings.reload();
  assert.is(settings.get().max_transfer_files, 7);
  assert.not.ok('some_later_option' in settings.get());
  await settings.update({ user_quota: 1000 });
  assert.equal(store.rows, { max_transfer_files: 7, some_later_option: true, user_quota: 1000 });
  assert.is(settings.get().user_quota, 1000);
});

test.run();
