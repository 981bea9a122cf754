/** Runs tasks one after another; a failed task does not stop the ones after it. */
export function createSerialExecutor() {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(task: () => T | Promise<T>): Promise<T> {
      const next = tail.then(task);
      tail = next.catch(() => undefined);
      return next;
    },
    idle: (): Promise<unknown> => tail,
  };
}

/** Many readers or one writer; searches share it while no mutation holds it. */
export function createReadWriteLock() {
  let readers = 0;
  let writing = false;
  const waiting: (() => void)[] = [];
  const wakeAll = (): void => {
    for (const wake of waiting.splice(0)) wake();
  };
  const acquire = async (canEnter: () => boolean, enter: () => void): Promise<void> => {
    while (!canEnter()) await new Promise<void>((resolve) => waiting.push(resolve));
    enter();
  };
  return {
    async read<T>(work: () => T | Promise<T>): Promise<T> {
      await acquire(() => !writing, () => void (readers += 1));
      try {
        return await work();
      } finally {
        readers -= 1;
        wakeAll();
      }
    },
    async write<T>(work: () => T | Promise<T>): Promise<T> {
      await acquire(() => !writing && readers === 0, () => void (writing = true));
      try {
        return await work();
      } finally {
        writing = false;
        wakeAll();
      }
    },
  };
}
