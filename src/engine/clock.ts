import { randomUUID } from 'node:crypto';

/** The one place that reads the clock and makes ids; everything below receives them. */
export interface Environment {
  readonly now: () => Date;
  readonly newId: () => string;
}

export const systemEnvironment: Environment = { now: () => new Date(), newId: () => randomUUID() };
