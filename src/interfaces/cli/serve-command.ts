import type { Config } from '../../engine/config.js';
import { integer, naturalNumber, str, type Command, type Handler, type Invocation } from './args.js';

// The doors (fastify, the MCP SDK) load only when one of these commands runs: every other
// command's cold start stays as it was.

const serverFlags = (inv: Pick<Invocation, 'flags'>): Record<string, unknown> => {
  const port = integer(inv, 'port', 0);
  const host = str(inv, 'host');
  return { server: { ...(host ? { host } : {}), ...(port === undefined ? {} : { port }) } };
};

const configOf = (inv: Invocation): Config => {
  if (!inv.config) throw new Error('serve and mcp run with the configuration the CLI loaded');
  return inv.config;
};

const untilSignal = (): Promise<string> =>
  new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
  });

/** `lmem serve`: REST under /v1, OpenAPI, MCP at /mcp and the chat proxy, until SIGINT or SIGTERM. */
const serve: Handler = async (engine, inv, out) => {
  const [{ startHttpServer }, { mountMcp }, { mountProxy }, { dashboardMount }] = await Promise.all([
    import('../http/server.js'),
    import('../mcp/http.js'),
    import('../proxy/chat.js'),
    import('../http/dashboard.js'),
  ]);
  const server = await startHttpServer(engine, configOf(inv), { mounts: [mountMcp, mountProxy, dashboardMount()] });
  void engine.maintenance.start();
  out.print({ address: server.address, auth: server.ctx.auth.required ? 'bearer' : 'none (loopback only)' }, () =>
    `LivingMemory serving on ${server.address}: dashboard /ui/, REST /v1, OpenAPI /openapi.json, MCP /mcp, proxy /v1/chat/completions` +
    (server.ctx.auth.required ? '' : ' (no token configured: loopback only)'));
  await untilSignal();
  await server.close();
};

/** `lmem mcp`: the MCP server on stdin/stdout. */
const mcp: Handler = async (engine, inv) => {
  const { serveMcpStdio } = await import('../mcp/stdio.js');
  await serveMcpStdio(engine, configOf(inv));
};

const principal = () => import('../shared/principal.js');

export const serveCommands: Readonly<Record<string, Command>> = {
  serve: {
    run: serve,
    summary: 'serve the REST API (/v1, /openapi.json), MCP (/mcp) and the OpenAI-compatible memory proxy until SIGINT/SIGTERM',
    options: [
      { flags: '--host <host>', description: 'address to listen on (default 127.0.0.1; others need server.tokens)' },
      { flags: '--port <n>', description: 'port (default 8787; 0 picks a free one)', value: naturalNumber },
    ],
    overrides: serverFlags,
    check: async (config) => (await principal()).checkBindAddress(config),
    creates: true,
  },
  mcp: {
    run: mcp,
    summary: 'MCP server on stdin/stdout: recall, memorize, update_memory, forget_memory, memory_history',
    check: async (config) => void (await principal()).stdioPrincipal(config),
    creates: true,
  },
};
