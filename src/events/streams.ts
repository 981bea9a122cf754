/** Stream names: one stream per aggregate, system streams for what has no aggregate. */
export const streams = {
  memory: (memoryId: string) => `memory-${memoryId}`,
  conversation: (sessionId: string) => `conversation-${sessionId}`,
  atom: (atomId: string) => `atom-${atomId}`,
  graph: (memoryId: string) => `graph-${memoryId}`,
  recall: (sessionId: string) => `recall-${sessionId}`,
  /** One stream per decay tick: appending to an existing one fails, so a date ticks once. */
  decayTick: (date: string) => `decay-${date}`,
  access: 'system-access',
  decay: 'system-decay',
  providers: 'system-providers',
  projections: 'system-projections',
  backups: 'system-backups',
  imports: 'system-imports',
  erasures: 'system-erasures',
  store: 'system-store',
} as const;
