// A file that throws while it is imported (test/integration/run-in-one-process.test.ts).
throw new Error('the fixture crashes on import');
