import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planClaims, progressOf, resendAllowance, type FileSpan } from '../../src/domain/download-limits';
import type { DownloadClaim } from '../../src/domain/ports';

// The rules of download limits (docs/sharing.md, Download limits) without a database: which claim a response
// goes on, when a copy counts, and how much of a copy may be sent again.

const SIZE = 1000;
const NOW = 1_000_000;
const span = (start: number, end = SIZE): FileSpan => ({ fileId: 7, size: SIZE, start, end });
const claim = (c: Partial<DownloadClaim> & { id: number }): DownloadClaim => ({
  fileId: 7,
  claimed: NOW - 100,
  done: null,
  sent: [],
  resent: 0,
  leaseUntil: 0,
  ...c,
});

test('a claim another response holds is never borrowed; once its lease lapses it is resumed', () => {
  const held = claim({ id: 1, sent: [[0, 1]], leaseUntil: NOW + 30 });
  // Refused, but worth a moment's wait: the answer holding it may be about to end (a chunk fetched after chunk).
  assert.equal(planClaims([held], [span(1)], 1, NOW), { steps: [], refused: [7], busy: true });
  assert.equal(planClaims([held], [span(1)], 2, NOW).steps, [{ span: span(1) }], 'a new copy while the limit allows');
  assert.is(planClaims([held], [span(1)], null, NOW).busy, false, 'without a limit, never waited for');
  assert.is(planClaims([{ ...held, done: NOW }], [span(1)], 1, NOW).busy, false, 'nor when it could not go on');
  const lapsed = { ...held, leaseUntil: NOW - 1 };
  assert.equal(planClaims([lapsed], [span(1)], 1, NOW).steps, [{ span: span(1), claim: lapsed }]);
});

test('a done copy resumes its last bytes within the allowance, in all; beyond it, it is a new copy', () => {
  assert.is(resendAllowance(SIZE), 499);
  const done = claim({ id: 1, done: NOW - 10, sent: [] });
  assert.equal(planClaims([done], [span(600)], 1, NOW).steps, [{ span: span(600), claim: done }]);
  assert.equal(planClaims([done], [span(1)], 1, NOW).refused, [7], 'bytes=1- after a whole copy');
  assert.equal(planClaims([done], [span(0)], 1, NOW).refused, [7]);
  const resumedOnce = { ...done, resent: 400 };
  assert.equal(planClaims([resumedOnce], [span(950)], 1, NOW).steps.length, 1);
  assert.equal(planClaims([resumedOnce], [span(800)], 1, NOW).refused, [7], 'the allowance is for the copy in all');
});

test('an unfinished copy goes on where it stopped, or from byte 0 while that re-sends under half', () => {
  const cut = claim({ id: 1, sent: [[0, 300]] });
  assert.equal(planClaims([cut], [span(300)], 1, NOW).steps, [{ span: span(300), claim: cut }]);
  assert.equal(planClaims([cut], [span(0)], 1, NOW).steps, [{ span: span(0), claim: cut }]);
  const late = claim({ id: 1, sent: [[0, 600]] });
  assert.equal(planClaims([late], [span(0)], 1, NOW).refused, [7]);
  // Of two copies, the one that sends least again.
  const whole = claim({ id: 2, done: NOW, sent: [] });
  assert.equal(planClaims([whole, late], [span(600)], 2, NOW).steps, [{ span: span(600), claim: late }]);
});

test('a copy counts once every byte was sent on it; what it sends again is counted from what it held before', () => {
  const before = { sent: [[0, 1]] as [number, number][], resent: 0, done: null };
  assert.equal(progressOf(before, span(1), 500, NOW), { sent: [[0, 501]], resent: 0, done: null });
  assert.equal(progressOf(before, span(1), 999, NOW), { sent: [[0, 1000]], resent: 0, done: NOW });
  const again = { sent: [[0, 800]] as [number, number][], resent: 10, done: null };
  assert.equal(progressOf(again, span(700), 300, NOW), { sent: [[0, 1000]], resent: 110, done: NOW });
  assert.equal(progressOf(again, span(700), 50, NOW), { sent: [[0, 800]], resent: 60, done: null });
  const empty = { fileId: 7, size: 0, start: 0, end: 0 };
  assert.is(progressOf({ sent: [], resent: 0, done: null }, empty, 0, NOW).done, NOW);
});

test.run();
