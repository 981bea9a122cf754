import { z } from 'zod';
import { lazy } from '../events/lazy.js';
import { idSchema } from '../events/metadata.js';

/** One API token: who it acts as, and the user it is limited to (null: every memory). */
export const apiTokenSchema = lazy(() =>
  z
    .object({
      token: z.string().min(16, 'must be at least 16 characters').max(500),
      actor: z.string().min(1).max(100).regex(/^[\w.@-]+$/, 'letters, digits, and . _ @ - only'),
      userId: idSchema.nullable().default(null),
    })
    .strict(),
);

export type ApiToken = z.output<ReturnType<typeof apiTokenSchema>>;

/**
 * `LIVINGMEMORY_API_TOKENS`: `token=actor` or `token=actor:userId`, comma-separated; a JSON
 * array of token objects also works. Returns the raw value when it is neither, for zod to refuse.
 */
export function parseTokenList(raw: string): unknown {
  const text = raw.trim();
  if (text.startsWith('[')) return JSON.parse(text) as unknown;
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const at = entry.indexOf('=');
      if (at < 0) return entry;
      const [actor = '', userId] = entry.slice(at + 1).split(':');
      return { token: entry.slice(0, at), actor, userId: userId ?? null };
    });
}

const budgetSchema = lazy(() =>
  z
    .object({
      /** Tool calls one MCP session may make in a window. */
      maxCalls: z.number().int().min(1).max(1000).default(4),
      /** The window: a run of calls (one agent request) lasts at most this long; each call too. */
      windowMs: z.number().int().min(100).max(600_000).default(20_000),
      /** Characters of tool output in a window, the rest cut. */
      maxChars: z.number().int().min(100).max(10_000_000).default(12_000),
    })
    .strict(),
);

/** `lmem serve`: where it listens, who may call it, and where the proxy forwards. */
export const serverConfigSchema = lazy(() =>
  z
    .object({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65_535).default(8787),
      tokens: z.array(apiTokenSchema()).max(1000).default([]),
      /** Request bodies above this are refused with 413; imports have their own limit. */
      bodyLimitBytes: z.number().int().min(1024).max(1024 ** 3).default(1024 * 1024),
      importBodyLimitBytes: z.number().int().min(1024).max(1024 ** 3).default(72 * 1024 * 1024),
      mcp: z
        .object({ budget: budgetSchema().default(budgetSchema().parse({})), token: z.string().min(16).optional() })
        .strict()
        .default({ budget: budgetSchema().parse({}) }),
      /** Where REST compliance exports go (outside the data dir, ADR 24); default: `<dataDir>-exports`. */
      exportsDir: z.string().min(1).optional(),
      /** The OpenAI-compatible endpoint the proxy forwards /v1/chat/completions to. */
      upstream: z
        .object({
          baseUrl: z.url().optional(),
          apiKey: z.string().min(1).optional(),
          timeoutMs: z.number().int().min(100).max(3_600_000).default(120_000),
        })
        .strict()
        .default({ timeoutMs: 120_000 }),
    })
    .strict(),
);

export type ServerConfig = z.output<ReturnType<typeof serverConfigSchema>>;
