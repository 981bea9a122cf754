import { scriptGlobs, scriptNames, scriptShare, type ScriptName } from '../../projections/text/scripts.js';

/**
 * What an embedding provider can embed meaningfully. A model reads the scripts of its vocabulary:
 * a text in another script still gets a vector, but one that means nothing (USE-lite gives every
 * Chinese sentence the same vector), so the vector route must not count it.
 */
export interface EmbeddingCoverage {
  /** The scripts the model reads; `any` for a multilingual model or a lexical provider. */
  readonly scripts: readonly ScriptName[] | 'any';
  /** The languages in words, for status and warnings ("English"). */
  readonly languages: string;
}

export const anyLanguage: EmbeddingCoverage = { scripts: 'any', languages: 'any language' };

/** Below this confidence a text is not embedded meaningfully: the vector route leaves it out. */
const minEmbeddingConfidence = 0.5;

/**
 * How far `coverage` reaches into the text, in [0, 1]: the share of its letters in the covered
 * scripts (see scriptShare); 1 for a provider that reads any script, or declares nothing.
 */
export function embeddingConfidence(coverage: EmbeddingCoverage | undefined, text: string): number {
  if (!coverage || coverage.scripts === 'any') return 1;
  return scriptShare(text, new Set(coverage.scripts));
}

/** The scripts a provider does not read (none for `any`). */
export function uncoveredScripts(coverage: EmbeddingCoverage | undefined): ScriptName[] {
  if (!coverage || coverage.scripts === 'any') return [];
  const covered = new Set(coverage.scripts);
  return scriptNames.filter((s) => !covered.has(s));
}

/** A checker for one provider: whether a text is embedded meaningfully; null when every text is. */
export function coverageCheck(coverage: EmbeddingCoverage | undefined): ((text: string) => boolean) | null {
  if (!coverage || coverage.scripts === 'any') return null;
  const covered = new Set(coverage.scripts);
  return (text) => scriptShare(text, covered) >= minEmbeddingConfidence;
}

/** What `status` says of the provider's reach over the store: the scripts it does not read that memories are written in. */
export interface CoverageReport {
  readonly provider: string;
  readonly languages: string;
  /** Per script the provider does not read, how many active memories hold some of it; only scripts with memories. */
  readonly uncovered: readonly { readonly script: ScriptName; readonly memories: number }[];
}

/** The report for `provider` over a store, counting with `countActiveWith` (a GLOB class; see scriptGlobs). */
export function coverageReport(
  provider: { readonly fingerprint: { readonly provider: string }; readonly coverage?: EmbeddingCoverage },
  countActiveWith: (charClass: string) => number,
): CoverageReport {
  const uncovered = uncoveredScripts(provider.coverage)
    .map((script) => ({ script, memories: countActiveWith(scriptGlobs[script]) }))
    .filter((u) => u.memories > 0);
  return { provider: provider.fingerprint.provider, languages: provider.coverage?.languages ?? anyLanguage.languages, uncovered };
}

/** The warning `start` prints, or null when the provider reads every script the store holds. */
export function coverageWarning(report: CoverageReport): string | null {
  if (report.uncovered.length === 0) return null;
  const held = report.uncovered.map((u) => `${u.memories} in ${u.script} script`).join(', ');
  return `the embedding provider ${report.provider} embeds ${report.languages} only; memories it cannot embed (${held}) are found by keyword and graph, not by meaning (configure an embedding provider that reads them)`;
}
