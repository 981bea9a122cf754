import { loadConfig, type Config } from '../../engine/config.js';
import { dashboardMount } from '../http/dashboard.js';
import { startHttpServer } from '../http/server.js';
import { mountMcp } from '../mcp/http.js';
import { serveMcpStdio } from '../mcp/stdio.js';
import { mountProxy } from '../proxy/chat.js';
import { integer, naturalNumber, str, type Command, type Handler, type Invocation } from './args.js';

/** The configuration again, with this command's flags: the handler gets the engine, not the config. */
function configOf(inv: Invocation): Config {
  const port = integer(inv, 'port', 0);
  const host = str(inv, 'host');
  const dataDir = str(inv, 'data-dir');
  return loadConfig({
    file: str(inv, 'config'),
    env: process.env,
    overrides: { ...(dataDir ? { dataDir } : {}), server: { ...(host ? { host } : {}), ...(port === undefined ? {} : { port }) } },
  });
}

const untilSignal = (): Promise<string> =>
  new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
  });

/** `lmem serve`: REST under /v1, OpenAPI, MCP at /mcp and the chat proxy, until SIGINT or SIGTERM. */
const serve: Handler = async (engine, inv, out) => {
  const config = configOf(inv);
  const server = await startHttpServer(engine, config, { mounts: [mountMcp, mountProxy, dashboardMount()] });
  void engine.maintenance.start();
  out.print({ address: server.address, auth: server.ctx.auth.required ? 'bearer' : 'none (loopback only)' }, () =>
    `LivingMemory serving on ${server.address}: dashboard /ui/, REST /v1, OpenAPI /openapi.json, MCP /mcp, proxy /v1/chat/completions` +
    (server.ctx.auth.required ? '' : ' (no token configured: loopback only)'));
  await untilSignal();
  await server.close();
};

/** `lmem mcp`: the MCP server on stdin/stdout. */
const mcp: Handler = async (engine, inv) => {
  await serveMcpStdio(engine, configOf(inv));
};

export const serveCommands: Readonly<Record<string, Command>> = {
  serve: {
    run: serve,
    summary: 'serve the REST API (/v1, /openapi.json), MCP (/mcp) and the OpenAI-compatible memory proxy until SIGINT/SIGTERM',
    options: [
      { flags: '--host <host>', description: 'address to listen on (default 127.0.0.1; others need server.tokens)' },
      { flags: '--port <n>', description: 'port (default 8787; 0 picks a free one)', value: naturalNumber },
    ],
    creates: true,
  },
  mcp: { run: mcp, summary: 'MCP server on stdin/stdout: recall, memorize, update_memory, forget_memory, memory_history', creates: true },
};
