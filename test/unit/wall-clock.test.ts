import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { instantToWallClock, knownTimeZone, wallClockToInstant } from '../../src/db/filesender/wall-clock';

/*
 * FileSender's dates are wall-clock text in PHP's time zone (`ferry import filesender --time-zone`,
 * docs/moving-from-filesender.md): read as UTC by the database, turned into the instant they name.
 */
const asUtc = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`) / 1000;

test('a wall-clock reading in a zone is the instant it names, in summer and in winter', () => {
  assert.is(wallClockToInstant(asUtc('2026-07-01 12:00:00'), 'Europe/Amsterdam'), asUtc('2026-07-01 10:00:00'));
  assert.is(wallClockToInstant(asUtc('2026-01-15 12:00:00'), 'Europe/Amsterdam'), asUtc('2026-01-15 11:00:00'));
  assert.is(wallClockToInstant(asUtc('2026-01-15 12:00:00'), 'America/New_York'), asUtc('2026-01-15 17:00:00'));
  assert.is(wallClockToInstant(asUtc('2026-01-15 12:00:00'), 'UTC'), asUtc('2026-01-15 12:00:00'));
  // What a real FileSender 3.8 in Europe/London wrote for the instant 0 (`last_reminder`): 1970 ran on BST all year.
  assert.is(wallClockToInstant(asUtc('1970-01-01 01:00:00'), 'Europe/London'), 0);
});

test('an instant and its wall-clock reading go back and forth, next to a change of offset too', () => {
  for (const zone of ['Europe/Amsterdam', 'Australia/Sydney', 'UTC']) {
    // Not the hour a clock goes back: its wall-clock text names two instants, and FileSender's text cannot say which.
    for (const at of [
      asUtc('2026-03-29 00:30:00'),
      asUtc('2026-03-29 01:30:00'),
      asUtc('2026-10-25 03:30:00'),
      1_800_000_000,
    ]) {
      assert.is(wallClockToInstant(instantToWallClock(at, zone), zone), at, `${zone} ${at}`);
    }
  }
});

test('unknown zones are told apart', () => {
  assert.ok(knownTimeZone('Europe/Amsterdam'));
  assert.not.ok(knownTimeZone('Mars/Olympus_Mons'));
});

test.run();
