import type { ChainReport } from '../events/log/verify-chain.js';
import type { EventLog } from '../events/log/event-log.js';
import { exportSubject, type ExportFormat } from '../replay/compliance/export.js';
import { parseSubject } from '../replay/compliance/subject.js';
import { verifyComplianceExport } from '../replay/compliance/verify.js';
import { replaySession, type ReplayStop } from '../replay/session-replay.js';
import type { Environment } from './clock.js';

/** Session replay and compliance export over the engine's log (ADR 20). */
export function createCompliance(deps: { log: EventLog & { verifyChain(): Promise<ChainReport> }; env: Environment }) {
  return {
    /** One session turn by turn, up to a turn or a position when given. */
    replaySession: (sessionId: string, stop?: ReplayStop) => replaySession(deps.log, sessionId, stop),
    /** Every record of a user, session, persona or everything, with a manifest; see `parseSubject` for the options. */
    complianceExport: async (subject: { user?: string; session?: string; persona?: string; all?: boolean }, out: { dir: string; format?: ExportFormat }) =>
      exportSubject({ log: deps.log, now: deps.env.now }, parseSubject(subject), out),
    /** Recomputes an export's digests and counts against its manifest. */
    verifyComplianceExport,
  };
}
