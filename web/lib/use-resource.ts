import { useEffect, useState } from 'preact/hooks';

/** Loads something from the API; `reload()` fetches it again after a change. */
export function useResource<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && (setData(d), setError(null)),
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [tick, ...deps]);
  return { data, error, reload: () => setTick((n) => n + 1) };
}
