import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FILE_COLUMNS, fileRowOf, RECIPIENT_COLUMNS, recipientRowOf } from '../../src/db/rows';

// A page's files and recipients come back as JSON arrays in FILE_COLUMNS' and RECIPIENT_COLUMNS' order
// (src/db/transfer-extras-repo.ts), and fileRowOf/recipientRowOf read them by position: a column added to one
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

test.run();
