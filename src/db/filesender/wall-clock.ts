/**
 * FileSender writes its DATETIME columns as wall-clock text in PHP's time zone (`date('Y-m-d H:i:s', $t)`); the
 * database reads them back as if they were UTC. These turn such a reading into the real instant for a given IANA
 * zone, and the other way round, with the zone's offset at that moment (summer time included).
 */

const formats = new Map<string, Intl.DateTimeFormat>();

/** Whether Node knows the zone (an IANA name such as "Europe/Amsterdam", or "UTC"). */
export function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Seconds the zone's wall clock is ahead of UTC at the instant `t` (UNIX seconds). */
export function zoneOffset(zone: string, t: number): number {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(t * 1000)).map((x) => [x.type, x.value]));
  const wall = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second) / 1000;
  return wall - t;
}

/** The instant of a wall-clock reading taken as UTC (`asUtc`) in `zone`. */
export function wallClockToInstant(asUtc: number, zone: string): number {
  if (zone === 'UTC') return asUtc;
  const first = asUtc - zoneOffset(zone, asUtc);
  // Near a change of offset the first guess may sit on the other side of it: take the offset where it landed.
  return asUtc - zoneOffset(zone, first);
}

/** The wall-clock reading (taken as UTC) that the zone shows at the instant `t`. */
export function instantToWallClock(t: number, zone: string): number {
  return zone === 'UTC' ? t : t + zoneOffset(zone, t);
}
