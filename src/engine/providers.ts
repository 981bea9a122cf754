import type { EventLog } from '../events/log/event-log.js';
import { streams } from '../events/streams.js';
import type { Environment } from './clock.js';
import type { EmbeddingProvider } from '../providers/embeddings/index.js';
import { canonicalJson } from '../providers/embeddings/index.js';
import { recordEvent } from './system-events.js';

/**
 * Records the embedding provider's fingerprint when it differs from the last one in the log,
 * and says whether it did: a change (a new model with the same dimension included) needs a full
 * vector rebuild.
 */
export async function recordEmbeddingFingerprint(log: EventLog, env: Environment, provider: EmbeddingProvider): Promise<boolean> {
  const history = await log.readStream(streams.providers);
  const last = history.filter((e) => e.type === 'ProviderFingerprintChanged' && e.data.role === 'embedding').at(-1);
  const previous = last?.type === 'ProviderFingerprintChanged' ? last.data.current : null;
  if (previous && canonicalJson(previous) === canonicalJson(provider.fingerprint)) return false;
  const body = {
    type: 'ProviderFingerprintChanged' as const,
    schemaVersion: 1 as const,
    data: { role: 'embedding' as const, previous, current: provider.fingerprint },
  };
  await recordEvent(log, env, 'system:engine', streams.providers, body);
  return previous !== null;
}
