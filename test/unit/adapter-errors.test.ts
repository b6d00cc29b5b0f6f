import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ServiceError } from '../../src/domain/errors';
import { DatabaseUnavailableError, fromPostgres } from '../../src/db/errors';
import { DatabaseBusyError } from '../../src/db/sqlite-driver';
import { StorageDownError, fromFileSystem } from '../../src/storage/errors';
import { toServiceError } from '../../src/http/middleware/errors';

// The database and the file store throw the catalogue's errors themselves (docs/architecture.md, Errors): the
// HTTP layer maps no driver's or system's code.

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

test('PostgreSQL away (no connection, connection lost, shutting down, too many connections) is database_unavailable', () => {
  for (const code of ['ECONNREFUSED', '08006', '08001', '57P01', '57P03', '53300']) {
    const e = fromPostgres(coded(code, `server says ${code}`));
    assert.instance(e, DatabaseUnavailableError, code);
    assert.equal([(e as ServiceError).id, (e as ServiceError).status], ['database_unavailable', 503], code);
    assert.match((e as Error).message, `server says ${code}`);
    assert.is((e as Error).cause instanceof Error, true);
  }
});

test("PostgreSQL's other answers stay as they are: a deadlock is run again by the unit of work, a constraint is a bug", () => {
  for (const code of ['40P01', '40001', '23505']) {
    const e = coded(code);
    assert.is(fromPostgres(e), e, code);
  }
});

test('SQLite locked for too long is database_unavailable', () => {
  const e = new DatabaseBusyError('database is locked by another process for more than 30 s');
  assert.instance(e, ServiceError);
  assert.equal([e.id, e.status, e.code], ['database_unavailable', 503, 'FERRY_DB_BUSY']);
});

test('a store out of reach is storage_unavailable; a full disk or quota storage_not_enough_space_left', () => {
  const down = new StorageDownError('object store: connect ECONNREFUSED', { cause: coded('ECONNREFUSED') });
  assert.equal([down.id, down.status, down.code], ['storage_unavailable', 503, 'FERRY_STORAGE_DOWN']);
  for (const code of ['ENOSPC', 'EDQUOT']) {
    const e = fromFileSystem(coded(code)) as ServiceError;
    assert.equal([e.id, e.status], ['storage_not_enough_space_left', 507], code);
  }
  const other = coded('EACCES');
  assert.is(fromFileSystem(other), other);
});

test('the HTTP layer passes them through as they are, and knows no driver code', () => {
  const busy = new DatabaseBusyError('locked');
  assert.is(toServiceError(busy), busy);
  for (const code of ['ENOSPC', 'FERRY_STORAGE_DOWN', 'FERRY_DB_BUSY', '57P01'])
    assert.is(toServiceError(coded(code)).id, 'internal_error', code);
});

test.run();
