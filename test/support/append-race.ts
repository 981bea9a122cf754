import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DomainEvent } from '../../src/events/catalog.js';

const childScript = fileURLToPath(new URL('./append-race-child.mjs', import.meta.url));
const compiledLog = fileURLToPath(new URL('../../dist/src/events/log/sqlite-event-log.js', import.meta.url));

export interface RaceResult {
  readonly type: 'result';
  readonly round: number;
  readonly ok: boolean;
  readonly startedAt?: number;
  readonly lastPosition?: string;
  readonly errorName?: string;
  readonly message?: string;
}

interface Message {
  readonly type: string;
  readonly round?: number;
}

function nextMessage<M extends Message>(child: ChildProcess, type: string, round?: number, ms = 15_000): Promise<M> {
  return new Promise<M>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message: Message) => {
      if (message.type !== type || (round !== undefined && message.round !== round)) return;
      done();
      resolve(message as M);
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`racer ${child.pid} exited with ${code} while waiting for ${type}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`racer ${child.pid}: no ${type} message within ${ms} ms`));
    }, ms);
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Child processes that each hold their own connection to one SQLite file and append on a shared start signal. */
export interface Racers {
  /** Every racer appends its own batch to `streamId` (or its own of `streamId`) with 'no_stream' once the start file appears. */
  race(round: number, streamId: string | readonly string[], batches: readonly DomainEvent[][]): Promise<RaceResult[]>;
  stop(): Promise<void>;
}

export async function startRacers(dbPath: string, signalDir: string, count: number): Promise<Racers> {
  if (!existsSync(compiledLog)) throw new Error(`${compiledLog} is missing: run npx tsc -p tsconfig.json first`);
  const children = Array.from({ length: count }, () =>
    fork(childScript, [dbPath], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        if (child.connected) child.send({ type: 'exit' });
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }),
    );
  };
  try {
    await Promise.all(children.map((child) => nextMessage(child, 'ready')));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    async race(round, streamId, batches) {
      const goFile = join(signalDir, `go-${round}`);
      const armed = children.map((child) => nextMessage(child, 'armed', round));
      const results = Promise.all(children.map((child) => nextMessage<RaceResult>(child, 'result', round)));
      results.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
      const streamOf = (i: number) => (typeof streamId === 'string' ? streamId : streamId[i]);
      children.forEach((child, i) => child.send({ type: 'arm', round, streamId: streamOf(i), events: batches[i], goFile }));
      await Promise.all(armed);
      writeFileSync(goFile, '');
      return results;
    },
    stop,
  };
}
