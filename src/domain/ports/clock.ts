/** Seconds since the epoch; injected so tests and `ferry purge --now` can move time. */
export type Clock = () => number;
export const systemClock: Clock = () => Math.floor(Date.now() / 1000);
