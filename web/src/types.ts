/** The shapes the dashboard reads from the REST API (see /openapi.json). */

export type MemoryStatus = 'active' | 'archived' | 'forgotten' | 'erased';

export interface Memory {
  memoryId: string;
  text: string;
  status: MemoryStatus;
  importance: number;
  sessionId: string | null;
  personaId: string | null;
  userId: string | null;
  createdAt: string;
  updatedAt: string;
  topics: string[];
  keyFacts?: string[];
  participants?: string[];
}

export interface MemoryPage {
  items: Memory[];
  total: number;
  nextCursor: string | null;
}

export interface HistoryEntry {
  position: number;
  streamId: string;
  type: string;
  eventId: string;
  occurredAt: string;
  actor: string;
  correlationId: string;
  causationId: string;
  description: string;
}

export interface Explanation {
  [step: string]: Record<string, number> | number | unknown;
}

export interface Recalled {
  memoryId: string;
  text: string;
  score: number;
  importance: number;
  createdAt: string;
  sessionId: string | null;
  facts: string[];
  explain?: Explanation;
}

export interface RecallAnswer {
  memories: Recalled[];
  injection: { text: string; included: string[]; dropped: string[] };
  cacheHit: boolean;
  position?: number;
  asOf?: string;
}

export interface ReplayTurn {
  turn: number;
  fromPosition: number;
  toPosition: number;
  messages: { position: number; messageId: string; role: string; sender: string | null; content: string; sentAt: string }[];
  recalls: { position: number; messageId: string; memoryIds: string[]; scores: number[]; injectedChars: number; error: string | null }[];
  summaries: { position: number; taskId: string; status: string; memoryIds: string[]; detail: string | null }[];
  written: { position: number; memoryId: string; text: string }[];
  forgotten: { position: number; memoryId: string; reason: string }[];
  rolledBack: { position: number; messageIds: string[]; reason: string; reset: boolean }[];
  cleaned: { position: number; messageId: string }[];
}

export interface SessionReplay {
  sessionId: string;
  position: number;
  totalTurns: number;
  turns: ReplayTurn[];
}
