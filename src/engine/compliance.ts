import type { ChainReport, VerifyChainOptions } from '../events/log/verify-chain.js';
import type { EventLog } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { genesisHash } from '../events/log/hash-chain.js';
import { exportFileNames, exportSubject, type ExportFormat } from '../replay/compliance/export.js';
import { parsePublicKey } from '../replay/compliance/signature.js';
import { parseSubject } from '../replay/compliance/subject.js';
import { verifyComplianceExport, type TrustedKey } from '../replay/compliance/verify.js';
import { replaySession, type ReplayStop } from '../replay/session-replay.js';
import type { Environment } from './clock.js';
import type { Outputs } from './outputs.js';
import { storeSigner } from './signing.js';

type ChainLog = EventLog & { verifyChain(options?: VerifyChainOptions): Promise<ChainReport> };

/** null when `position:hash` is a link of the log (the chain walked up to it intact), otherwise why not. */
export async function chainHolds(log: ChainLog, position: bigint, hash: string): Promise<string | null> {
  if (position === 0n) return hash === genesisHash ? null : 'position 0 has only the genesis link';
  const report = await log.verifyChain({ anchor: { position, hash } });
  const broken = report.firstBreak;
  return broken && broken.position <= position ? `${broken.kind} at position ${broken.position}: ${broken.detail}` : null;
}

/**
 * Checks an export with no store at hand: against the public key text given (`--public-key`), or,
 * without one, against the manifest's own key only, which the result says plainly (ADR 24).
 */
export async function verifyExportWithoutStore(dir: string, publicKeyText?: string) {
  const trusted: TrustedKey[] = publicKeyText === undefined ? [] : [{ source: 'public-key', key: parsePublicKey(publicKeyText, 'public-key') }];
  return verifyComplianceExport(dir, { trusted });
}

/** Session replay and compliance export over the engine's log (ADR 20), signed with the store's key (ADR 24). */
export function createCompliance(deps: { db: SqliteDatabase; log: ChainLog; env: Environment; outputs: Outputs }) {
  const signer = () => storeSigner(deps.db);
  return {
    /** One session turn by turn, up to a turn or a position when given. */
    replaySession: (sessionId: string, stop?: ReplayStop) => replaySession(deps.log, sessionId, stop),
    /** Every record of a user, session, persona or everything, with a signed manifest; see `parseSubject` for the options. */
    complianceExport: async (
      subject: { user?: string; session?: string; persona?: string; all?: boolean },
      out: { dir: string; format?: ExportFormat; force?: boolean },
    ) => {
      const parsed = parseSubject(subject);
      const dir = deps.outputs.checkDir(out.dir, exportFileNames, { flag: 'out', force: out.force === true });
      return exportSubject({ log: deps.log, now: deps.env.now, signer: signer() }, parsed, { ...out, dir });
    },
    /**
     * Checks an export against this store: signed by its key (and by the given public key, when
     * one is), digests and counts, and the manifest's chain head a link of this store's log.
     */
    verifyComplianceExport: (dir: string, options: { publicKey?: string } = {}) =>
      verifyComplianceExport(dir, {
        trusted: [
          { source: 'store', key: signer().publicKey },
          ...(options.publicKey === undefined ? [] : [{ source: 'public-key' as const, key: parsePublicKey(options.publicKey, 'public-key') }]),
        ],
        chainHead: (position, hash) => chainHolds(deps.log, position, hash),
      }),
    /** The store's public key (PEM) and its id; the key is made on first use. */
    publicKey: () => {
      const s = signer();
      return { keyId: s.keyId, pem: s.publicPem() };
    },
  };
}
