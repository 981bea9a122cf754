import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { defaultLimits, limitsSchema } from '../events/bounds.js';
import { fieldPath } from '../events/errors.js';
import { lazy } from '../events/lazy.js';
import { embeddingConfigSchema } from '../providers/embeddings/index.js';
import { conversationConfigSchema } from './conversation/config.js';
import { llmConfigSchema } from '../providers/llm/index.js';
import { rerankConfigSchema } from '../providers/rerank.js';
import { lifecycleSettingsSchema } from '../commands/lifecycle/settings.js';
import { configDefaults } from './config-defaults.js';
import { logConfigSchema } from './log-config.js';
import { parseTokenList, serverConfigSchema } from './server-config.js';

/**
 * Managed backups (ADR 29): the engine's own copies, in `dir` (default `<dataDir>-backups`, beside the data dir),
 * kept `keepDays` days (the newest always stays), taken daily after the tick when `daily` is set.
 */
export const backupsConfigSchema = lazy(() =>
  z
    .object({
      dir: z.string().min(1).nullable().default(null),
      keepDays: z.number().min(0).default(7),
      daily: z.boolean().default(false),
    })
    .strict(),
);

/**
 * The approximate vector index (ADR 8): exact search below `minVectors` vectors (the default keeps
 * every store of fewer than a million memories exact), HNSW with `m` links and `efSearch` candidates above.
 * efSearch 2048: at 1M hash embeddings 512 found 0.83 of the exact 10 nearest, 2048 found 0.98, in a
 * sixth of the exact scan's time (ADR 8).
 */
export const approximateVectorsSchema = lazy(() =>
  z
    .object({
      minVectors: z.number().int().min(1).default(1_000_000),
      m: z.number().int().min(4).max(128).default(32),
      efSearch: z.number().int().min(16).max(4096).default(2048),
    })
    .strict(),
);

/** Each top-level setting's schema, built when a configuration gives that setting (or the whole schema is asked for). */
const parts = {
  dataDir: () => z.string().min(1).default('./data'),
  databaseFile: () => z.string().min(1).default('livingmemory.db'),
  sqlite: () =>
    z
      .object({ synchronous: z.enum(['FULL', 'NORMAL']).default('FULL') })
      .strict()
      .default({ synchronous: 'FULL' }),
  projections: () =>
    z
      .object({
        pageSize: z.number().int().min(1).max(100_000).default(1000),
        // A vector shadow rebuild writes its snapshot (the point a killed rebuild resumes from) every this many events.
        vectorPersistEvery: z.number().int().min(1).default(50_000),
        // Vector searches go through an approximate HNSW index from minVectors vectors on (ADR 8); null: always exact.
        approximateVectors: approximateVectorsSchema().nullable().default(approximateVectorsSchema().parse({})),
      })
      .strict()
      .default({ pageSize: 1000, vectorPersistEvery: 50_000, approximateVectors: approximateVectorsSchema().parse({}) }),
  actor: () => z.string().min(1).default('cli'),
  embedding: () => embeddingConfigSchema().default({ provider: 'hash' }),
  rerank: () => rerankConfigSchema().default({ provider: 'none', timeoutMs: 10_000 }),
  conversation: () => conversationConfigSchema().default(conversationConfigSchema().parse({})),
  llm: () => llmConfigSchema().default(llmConfigSchema().parse({})),
  lifecycle: () => lifecycleSettingsSchema().default(lifecycleSettingsSchema().parse({})),
  backups: () => backupsConfigSchema().default(backupsConfigSchema().parse({})),
  log: () => logConfigSchema().default(logConfigSchema().parse({})),
  server: () => serverConfigSchema().default(serverConfigSchema().parse({})),
  /** What a command accepts (ADR 23): texts over these are refused before anything is appended. */
  limits: () => limitsSchema().default(defaultLimits),
};

type Part = keyof typeof parts;
type Shape = { [K in Part]: ReturnType<(typeof parts)[K]> };
const partSchemas = Object.fromEntries(Object.entries(parts).map(([key, make]: [string, () => z.ZodType]) => [key, lazy(make)])) as unknown as { [K in Part]: () => Shape[K] };
const isPart = (key: string): key is Part => Object.hasOwn(parts, key);

/** Every setting of the engine, validated once at start. */
export const configSchema = lazy(() => z.object(Object.fromEntries(Object.entries(partSchemas).map(([key, schema]) => [key, schema()])) as unknown as Shape).strict());

export type Config = z.output<ReturnType<typeof configSchema>>;

/** A setting that was refused; `key` is the dotted path, `source` where the value came from. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly key: string,
    readonly source: string,
    detail: string,
  ) {
    super(`configuration ${key} (from ${source}): ${detail}`);
  }
}

// Variables arrive as text; the ones naming numeric settings are read as numbers.
type EnvKey = { readonly path: readonly string[]; readonly numeric?: true; readonly parse?: (raw: string) => unknown };
const envKeys: Readonly<Record<string, EnvKey>> = {
  LIVINGMEMORY_DATA_DIR: { path: ['dataDir'] },
  LIVINGMEMORY_DATABASE_FILE: { path: ['databaseFile'] },
  LIVINGMEMORY_SQLITE_SYNCHRONOUS: { path: ['sqlite', 'synchronous'] },
  LIVINGMEMORY_PROJECTIONS_PAGE_SIZE: { path: ['projections', 'pageSize'], numeric: true },
  LIVINGMEMORY_VECTOR_PERSIST_EVERY: { path: ['projections', 'vectorPersistEvery'], numeric: true },
  LIVINGMEMORY_ACTOR: { path: ['actor'] },
  LIVINGMEMORY_EMBEDDING_PROVIDER: { path: ['embedding', 'provider'] },
  LIVINGMEMORY_EMBEDDING_MODEL_DIR: { path: ['embedding', 'modelDir'] },
  LIVINGMEMORY_MEMORY_SCOPE_MODE: { path: ['conversation', 'scopeMode'] },
  LIVINGMEMORY_LLM_PROVIDER: { path: ['llm', 'provider'] },
  LIVINGMEMORY_DECAY_HOUR: { path: ['lifecycle', 'decay', 'hour'], numeric: true },
  LIVINGMEMORY_DECAY_TIME_ZONE: { path: ['lifecycle', 'decay', 'timeZone'] },
  LIVINGMEMORY_BACKUPS_DIR: { path: ['backups', 'dir'] },
  LIVINGMEMORY_LOG_KIND: { path: ['log', 'kind'] },
  LIVINGMEMORY_EVENTSTORE_URL: { path: ['log', 'eventstoredb', 'connectionString'] },
  LIVINGMEMORY_API_TOKENS: { path: ['server', 'tokens'], parse: parseTokenList },
  LIVINGMEMORY_SERVER_HOST: { path: ['server', 'host'] },
  LIVINGMEMORY_SERVER_PORT: { path: ['server', 'port'], numeric: true },
  LIVINGMEMORY_MCP_TOKEN: { path: ['server', 'mcp', 'token'] },
  LIVINGMEMORY_UPSTREAM_BASE_URL: { path: ['server', 'upstream', 'baseUrl'] },
  LIVINGMEMORY_UPSTREAM_API_KEY: { path: ['server', 'upstream', 'apiKey'] },
};
const envMeta = new Set(['LIVINGMEMORY_CONFIG']);

type Layer = { readonly source: string; readonly values: Record<string, unknown> };

export interface ConfigSources {
  readonly file?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  readonly overrides?: Record<string, unknown>;
}

/** Defaults, then the file, then LIVINGMEMORY_* variables, then explicit overrides (flags). */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? {};
  const file = sources.file ?? env.LIVINGMEMORY_CONFIG;
  const layers: Layer[] = [];
  if (file) layers.push({ source: file, values: readConfigFile(file) });
  layers.push({ source: 'environment', values: fromEnv(env) });
  if (sources.overrides) layers.push({ source: 'command line', values: sources.overrides });
  let merged: Record<string, unknown> = {};
  let config: Config = configDefaults();
  for (const layer of layers) {
    merged = deepMerge(merged, layer.values);
    const result = parseConfig(merged);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new ConfigError(fieldPath(issue?.path ?? []), layer.source, issue?.message ?? 'invalid');
    }
    config = result.data;
  }
  return config;
}

/**
 * `configSchema().safeParse(given)`, the same result, without building the schemas of the settings
 * `given` leaves out: those take `configDefaults()` (a `status` gives one or two settings, and
 * building all of them was a tenth of its start, ADR 26). A key it does not know or a value its
 * setting refuses goes through the whole schema, so the error is the one it always was.
 */
function parseConfig(given: Record<string, unknown>): ReturnType<ReturnType<typeof configSchema>['safeParse']> {
  const keys = Object.keys(given);
  if (keys.every(isPart)) {
    const config: Record<string, unknown> = configDefaults();
    const refused = keys.some((key) => {
      const result = partSchemas[key]().safeParse(given[key]);
      if (result.success) config[key] = result.data;
      return !result.success;
    });
    if (!refused) return { success: true, data: config as Config };
  }
  return configSchema().safeParse(given);
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('(file)', path, `cannot read: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
    return parsed as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError('(file)', path, `not valid JSON: ${(error as Error).message}`);
  }
}

function fromEnv(env: NodeJS.ProcessEnv): Record<string, unknown> {
  let values: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('LIVINGMEMORY_') || envMeta.has(name) || raw === undefined) continue;
    const key = envKeys[name];
    if (!key) throw new ConfigError(name, 'environment', `unknown setting; known: ${Object.keys(envKeys).join(', ')}`);
    const value = key.parse ? parseEnvValue(name, key.parse, raw) : key.numeric && raw.trim() !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
    values = deepMerge(values, nest(key.path, value));
  }
  return values;
}

function parseEnvValue(name: string, parse: (raw: string) => unknown, raw: string): unknown {
  try {
    return parse(raw);
  } catch (error) {
    throw new ConfigError(name, 'environment', (error as Error).message);
  }
}

function nest(path: readonly string[], value: unknown): Record<string, unknown> {
  return path.reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), value as never);
}

function deepMerge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const prior = out[key];
    const bothObjects = isPlainObject(prior) && isPlainObject(value);
    out[key] = bothObjects ? deepMerge(prior, value) : value;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
