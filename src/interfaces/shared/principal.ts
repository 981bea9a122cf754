import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { ApiToken } from '../../engine/server-config.js';

/** Who calls through a door: the token's actor, and the one user it may see (null: all). */
export interface Principal {
  readonly actor: string;
  readonly userId: string | null;
}

/** The caller when no token is configured: the server then only listens on loopback. */
export const localPrincipal: Principal = { actor: 'local', userId: null };

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
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}
