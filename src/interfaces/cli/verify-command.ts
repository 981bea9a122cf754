import { ValidationError } from '../../events/errors.js';
import type { StoreVerification } from '../../replay/verify.js';
import type { MemoryEngine } from '../../engine/engine.js';
import type { Invocation } from './args.js';
import { verifyFailedExitCode } from './exit-codes.js';
import { table, type Output } from './output.js';


/** `--anchor POSITION:HASH`: a head hash exported by an earlier verify, which the chain must still contain. */
function anchorOf(inv: Invocation): { position: bigint; hash: string } | undefined {
  const value = inv.flags.anchor;
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+):([0-9a-fA-F]{64})$/.exec(value);
  if (!match) throw new ValidationError('anchor', `must be POSITION:SHA256-HEX, got "${value}"`);
  return { position: BigInt(match[1] ?? '0'), hash: (match[2] ?? '').toLowerCase() };
}

const short = (digest: string | null): string | null => digest && digest.slice(0, 16);

function describe(report: StoreVerification): string {
  const { chain } = report;
  const head = chain.firstBreak
    ? `log: BROKEN at position ${chain.firstBreak.position} (${chain.firstBreak.kind}): ${chain.firstBreak.detail}\n` +
      `     ${chain.checked === 0n ? 'no event before it' : `positions 1-${chain.checked} before it are intact`}`
    : `log: ok, ${chain.checked} events, head hash ${chain.headPosition}:${chain.headHash}`;
  const rows = report.projections.map((p) => [p.name, p.position, p.status, short(p.live), short(p.replayed), p.detail ?? null]);
  return [
    head,
    table([['projection', 'position', 'status', 'live digest', 'replayed digest', 'detail'], ...rows]),
    report.ok ? 'verify: ok' : 'verify: FAILED',
  ].join('\n');
}

/** Walks the hash chain, then compares every projection with a fresh replay; exits 3 on any finding. */
export async function verify(engine: MemoryEngine, inv: Invocation, out: Output): Promise<number> {
  const anchor = anchorOf(inv);
  const [{ verifyStore }, { engineProjections }] = await Promise.all([import('../../replay/verify.js'), import('../../engine/indexes.js')]);
  const report = await verifyStore({
    log: engine.log,
    runner: engine.runner,
    projections: engineProjections,
    vectors: [engine.indexes.vectors, engine.indexes.graphVectors],
    ...(anchor ? { chain: { anchor } } : {}),
  });
  out.print(report, () => describe(report));
  return report.ok ? 0 : verifyFailedExitCode;
}
