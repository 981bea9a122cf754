import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { ConfigError, type Config } from '../../engine/config.js';
import type { ApiToken } from '../../engine/server-config.js';

/** Who calls through a door: the token's actor, and the one user it may see (null: all). */
export interface Principal {
  readonly actor: string;
  readonly userId: string | null;
}

/** The caller when no token is configured: the server then only listens on loopback. */
const localPrincipal: Principal = { actor: 'local', userId: null };

/** The actor recorded in event metadata: which door, and who (`http:alice`, `mcp:local`). */
export const actorOf = (door: 'http' | 'mcp' | 'proxy', principal: Principal): string => `${door}:${principal.actor}`;

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Bearer-token authentication. Tokens are compared as SHA-256 digests in constant time, so
 * neither the length nor a prefix of a token leaks through timing.
 */
export function createAuthenticator(tokens: readonly ApiToken[]) {
  const known = tokens.map((t) => ({ hash: digest(t.token), principal: { actor: t.actor, userId: t.userId } }));
  return {
    /** False: no token configured, every caller is the local one. */
    required: known.length > 0,
    /** The principal of a token, or null when it is unknown. */
    byToken(token: string): Principal | null {
      const hash = digest(token);
      return known.find((k) => timingSafeEqual(k.hash, hash))?.principal ?? null;
    },
    /** The principal of an `Authorization: Bearer ...` header; null when missing or unknown. */
    byHeader(header: string | undefined): Principal | null {
      if (known.length === 0) return localPrincipal;
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
      return match?.[1] ? this.byToken(match[1]) : null;
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;

/** 127.0.0.0/8, ::1, ::ffff:127.x and `localhost`: the addresses only this machine reaches. */
function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/**
 * Refuses to listen beyond this machine without a token: with no token configured anyone who can
 * reach the port would act as the local, unscoped caller.
 */
export function checkBindAddress(config: Config): void {
  if (config.server.tokens.length === 0 && !isLoopback(config.server.host)) {
    throw new ConfigError('server.host', 'configuration', `${config.server.host} is not a loopback address; without server.tokens (LIVINGMEMORY_API_TOKENS) the server listens on loopback only`);
  }
}

/**
 * Who `lmem mcp` acts as: with tokens configured the one `server.mcp.token` (LIVINGMEMORY_MCP_TOKEN)
 * names, as `/mcp` would for that token; without, the local unscoped caller.
 */
export function stdioPrincipal(config: Config): Principal {
  const auth = createAuthenticator(config.server.tokens);
  const token = config.server.mcp.token;
  const principal = auth.required ? (token ? auth.byToken(token) : null) : auth.byHeader(undefined);
  if (!principal) throw new ConfigError('server.mcp.token', 'configuration', 'tokens are configured: set LIVINGMEMORY_MCP_TOKEN to one of them');
  return principal;
}
