import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  FILE_COLUMNS,
  fileRowOf,
  RECIPIENT_COLUMNS,
  recipientRowOf,
  TRANSFER_COLUMNS,
  transferRowOf,
} from '../../src/db/rows';

// A page's Transfers, files and recipients come back as JSON arrays in the order of TRANSFER_COLUMNS, FILE_COLUMNS
// and RECIPIENT_COLUMNS
// (src/db/transfer-extras-repo.ts), and transferRowOf/fileRowOf/recipientRowOf read them by position: a column added to one
// list and not the other would give every file of every list a wrong field. Each name given as its own value
// must come back under its own key, and every key of the row must be a listed column.

test('fileRowOf reads each of FILE_COLUMNS from its position, and nothing else', () => {
  const row = fileRowOf([...FILE_COLUMNS]) as unknown as Record<string, string>;
  for (const c of FILE_COLUMNS) assert.is(row[c], c, c);
  assert.equal(Object.keys(row).sort(), [...FILE_COLUMNS].sort());
});

test('recipientRowOf reads each of RECIPIENT_COLUMNS from its position, and nothing else', () => {
  const row = recipientRowOf([...RECIPIENT_COLUMNS]) as unknown as Record<string, string>;
  for (const c of RECIPIENT_COLUMNS) assert.is(row[c], c, c);
  assert.equal(Object.keys(row).sort(), [...RECIPIENT_COLUMNS].sort());
});

test('transferRowOf reads each of TRANSFER_COLUMNS from its position, and nothing else', () => {
  const row = transferRowOf([...TRANSFER_COLUMNS]) as unknown as Record<string, string>;
  for (const c of TRANSFER_COLUMNS) assert.is(row[c], c, c);
  assert.equal(Object.keys(row).sort(), [...TRANSFER_COLUMNS].sort());
});

test.run();
