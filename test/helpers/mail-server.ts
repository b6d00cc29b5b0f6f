import type { Test } from 'uvu';
import { startTestSink, type TestSink } from './mail';
import { startTestServer, type TestServer } from './server';

/**
 * A test server that mails into a test SMTP sink, for the files whose every test reads the mail a request
 * caused: started before the file's tests (the config made from the sink's address), both closed after them.
 * `s` and `sink` stand for the running ones from the first test on (each property read is the running one's).
 */
export function serverWithSink(
  test: Test,
  config: (sink: TestSink) => Record<string, unknown>,
): { s: TestServer; sink: TestSink } {
  let s: TestServer | undefined;
  let sink: TestSink | undefined;
  test.before(async () => {
    sink = await startTestSink();
    s = await startTestServer(config(sink));
  });
  test.after(async () => {
    await s?.close();
    await sink?.close();
  });
  return { s: standIn(() => s, 'server'), sink: standIn(() => sink, 'sink') };
}

/** An object whose properties are those of what `current` gives once it runs (methods bound to it). */
function standIn<T extends object>(current: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_, prop) {
      const real = current();
      if (!real) throw new Error(`the test ${what} is not running yet (used before test.before ran)`);
      const v = Reflect.get(real, prop, real);
      return typeof v === 'function' ? v.bind(real) : v;
    },
  });
}
