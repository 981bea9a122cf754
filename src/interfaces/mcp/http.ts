import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, DoorContext } from '../http/context.js';
import { HttpError } from '../http/errors.js';
import type { Principal } from '../shared/principal.js';
import { createMcpServer } from './server.js';

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly principal: Principal;
}

/**
 * `/mcp`: MCP over streamable HTTP under `lmem serve`, behind the same bearer tokens. Each
 * initialize opens a session (its own server, principal and tool budget); later requests name it
 * in `mcp-session-id` and must come with a token of the same principal.
 */
export function mountMcp(app: App, { engine, config }: DoorContext): void {
  const sessions = new Map<string, Session>();
  app.addHook('onClose', async () => {
    await Promise.all([...sessions.values()].map((s) => s.transport.close()));
  });

  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    const id = req.headers['mcp-session-id'];
    let session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (typeof id === 'string' && !session) throw new HttpError(404, 'session_not_found', `no MCP session ${id}`, 'mcp-session-id');
    if (session && session.principal !== req.principal) throw new HttpError(403, 'forbidden', 'this MCP session belongs to another token');
    if (!session) {
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        throw new HttpError(400, 'invalid', 'start with an initialize request (no mcp-session-id yet)', 'mcp-session-id');
      }
      const principal = req.principal;
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, principal }),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await createMcpServer(engine, principal, config.server.mcp.budget, config.limits).connect(transport);
      session = { transport, principal };
    }
    reply.hijack();
    await session.transport.handleRequest(req.raw, reply.raw, req.body);
  };
  app.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', schema: { hide: true }, handler: handle });
}
