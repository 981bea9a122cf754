import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: Error | undefined;
  readonly loading: boolean;
  reload(): void;
}

/** Runs `load` whenever `deps` change; an answer that arrives after a newer request is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const call = (latest.current += 1);
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => call === latest.current && setState({ data, loading: false }),
      (error: unknown) => call === latest.current && setState((s) => ({ ...s, error: error instanceof Error ? error : new Error(String(error)), loading: false })),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** An action button's state: running, its last error, and its last result. */
export function useAction<A extends unknown[], T>(run: (...args: A) => Promise<T>) {
  const [state, setState] = useState<{ running: boolean; error?: Error; result?: T }>({ running: false });
  const call = async (...args: A): Promise<T | undefined> => {
    setState({ running: true });
    try {
      const result = await run(...args);
      setState({ running: false, result });
      return result;
    } catch (error) {
      setState({ running: false, error: error instanceof Error ? error : new Error(String(error)) });
      return undefined;
    }
  };
  return { ...state, call, reset: () => setState({ running: false }) };
}
